import {
  type AnyRoute,
  type AppDeps,
  allRoutes,
  findMerchantEnvironment,
  type HandlerContext,
  parseOrThrow,
  renderError,
  runIdempotent,
  validateIdempotencyKey,
} from "@mp/api";
import { NotFoundError } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { recordAudit } from "@mp/db";
import { type Request, type Response, Router } from "express";
import { dashboardActor } from "./audit-log.ts";
import { merchantIdParam } from "./merchant-param.ts";
import { userWith } from "./require-session.ts";
import { assertMerchantVisible, type DashboardUser, type Permission } from "./roles.ts";

/** What a write records in the audit log, from the route's answer. */
export type AuditOf = (answer: { data: unknown; params: Record<string, unknown> }) => {
  action: string;
  objectType: string;
  objectId: string;
};

function routeOf(operationId: string): AnyRoute {
  const route = allRoutes.find((r) => r.operationId === operationId);
  if (!route) throw new Error(`no /v1 route ${operationId}`);
  return route;
}

/** `/v1/webhook-endpoints/{webhook_endpoint_id}` as `/merchants/:merchantId/webhook-endpoints/:webhook_endpoint_id`. */
export function dashboardPathOf(route: AnyRoute): string {
  return `/merchants/:merchantId${route.path.replace(/^\/v1/, "").replace(/\{(\w+)\}/g, ":$1")}`;
}

/** The signed-in user, if their role grants `permission`, and the merchant of the path, if they may see it (404 otherwise). */
export function merchantOfPath(
  req: Request,
  res: Response,
  permission: Permission,
): { user: DashboardUser; merchantId: string } {
  const user = userWith(res, permission);
  const merchantId = merchantIdParam(req);
  assertMerchantVisible(user, merchantId);
  return { user, merchantId };
}

/** The merchant of the path, if this user may open it and it exists (404 otherwise, as the API). */
export async function visibleMerchant(
  db: Database,
  req: Request,
  res: Response,
  permission: Permission,
): Promise<{ user: DashboardUser; merchantId: string; environment: "sandbox" | "production" }> {
  const { user, merchantId } = merchantOfPath(req, res, permission);
  const environment = await findMerchantEnvironment(db, merchantId);
  if (!environment) throw new NotFoundError("Merchant");
  return { user, merchantId, environment };
}

/**
 * One /v1 route under /dashboard/api/merchants/{merchantId}, run by the route's own definition: its
 * schemas validate the path, query and body, its `prepare` and `handler` do the work, exactly as for
 * an API key of that merchant. So the dashboard holds no second copy of any domain rule: only who
 * may call it (the session's role, `permission`) and which merchant (the path's, when the user may
 * see it) are the dashboard's. An idempotent route runs in one transaction, as under
 * runIdempotent, with its audit record; the answer is the route's `data` with its status.
 */
export function v1Route(deps: AppDeps, operationId: string, permission: Permission, audit?: AuditOf): Router {
  const route = routeOf(operationId);
  const router = Router();
  router[route.method](dashboardPathOf(route), async (req: Request, res: Response) => {
    const { user, merchantId, environment } = await visibleMerchant(deps.db, req, res, permission);
    const { merchantId: _merchant, ...pathParams } = req.params as Record<string, string>;
    const params = route.params ? parseOrThrow(route.params, pathParams, "path") : {};
    const query = route.query ? parseOrThrow(route.query, req.query ?? {}, "query") : {};
    const body = route.body ? parseOrThrow(route.body, req.body ?? {}, "body") : undefined;
    // A create the page may retry (a new payout) sends X-Idempotency-Key: run at most once, as /v1 does.
    const header = req.get("x-idempotency-key");
    const key = route.idempotent && header !== undefined ? validateIdempotencyKey(header) : undefined;
    const context = {
      req,
      res,
      deps,
      merchant: { merchantId, environment, keyId: dashboardActor(user.email) },
      params,
      query,
      body,
      idempotencyKey: key,
    };
    const prepared = route.prepare ? await route.prepare(context) : undefined;
    const run = async (sql: Queryable): Promise<Reply> => {
      const reply = await route.handler({ ...context, sql, prepared } as HandlerContext<unknown, unknown, unknown>);
      if (audit && reply.status < 300) {
        const entry = audit({ data: reply.data, params: params as Record<string, unknown> });
        await recordAudit(sql, {
          actor: dashboardActor(user.email),
          ...entry,
          details: { merchant_id: merchantId },
        });
      }
      return reply;
    };
    let answer: Answer;
    try {
      answer =
        key === undefined
          ? await runOnce(deps.db, route, run)
          : await runWithKey(deps, req, merchantId, key, route, run);
    } catch (error) {
      prepared?.release();
      throw error;
    }
    // As the API: what a replay or a refusal shows went unused is given back (after a 5xx it is kept).
    if (answer.status >= 400 || answer.replayed) prepared?.release();
    if (answer.replayed) res.set("Idempotent-Replayed", "true");
    if (route.secretInAnswer) res.set("Cache-Control", "no-store");
    res.status(answer.status).type("application/json").send(answer.body);
  });
  return router;
}

type Reply = Awaited<ReturnType<AnyRoute["handler"]>>;
interface Answer {
  status: number;
  body: string;
  replayed: boolean;
}

/** Without a key: an idempotent route in one transaction (with its audit record), a read on the pool. */
async function runOnce(db: Database, route: AnyRoute, run: (sql: Queryable) => Promise<Reply>): Promise<Answer> {
  const reply = route.idempotent ? await db.tx(run) : await run(db);
  return { status: reply.status, body: JSON.stringify(reply.data), replayed: false };
}

/**
 * With a key: runIdempotent, as /v1 runs it: the effect, its audit record and the recorded answer
 * commit together; the same key again replays that answer (a 4xx too), another body is 409.
 */
async function runWithKey(
  deps: AppDeps,
  req: Request,
  merchantId: string,
  key: string,
  route: AnyRoute,
  run: (sql: Queryable) => Promise<Reply>,
): Promise<Answer> {
  const stored = await runIdempotent(
    deps.db,
    { merchantId, key, method: req.method, path: req.path, body: req.body ?? {}, keyring: deps.encryption },
    async (sql) => {
      const reply = await run(sql);
      return { status: reply.status, body: JSON.stringify(reply.data) };
    },
    (error) => renderError(error),
    { sealAnswer: route.secretInAnswer === true },
  );
  return stored;
}
