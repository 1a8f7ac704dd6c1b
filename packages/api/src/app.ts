import { AppError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { type AuthenticatedMerchant, authenticate } from "./auth/authenticate.ts";
import type { AppDeps } from "./deps.ts";
import { successBody } from "./http/envelope.ts";
import { errorHandler, isClientError, renderError } from "./http/error-handler.ts";
import { perClientRateLimit, perKeyRateLimit } from "./http/rate-limit.ts";
import { requestLogging } from "./http/request-context.ts";
import type { AnyRoute, HandlerContext, PrepareContext, Reply, Reservation } from "./http/route.ts";
import { parseOrThrow } from "./http/validate.ts";
import { runIdempotent, type StoredResponse, validateIdempotencyKey } from "./idempotency/run-idempotent.ts";
import { allRoutes } from "./routes.ts";
import { sandboxRoutesGuard } from "./sandbox/sandbox-routes-guard.ts";

type RateLimit = ReturnType<typeof perKeyRateLimit>;

/**
 * Writes a JSON answer with node's own `end`. Express's `send` adds work none of our answers need
 * (content negotiation of the charset, a Buffer copy of every body over 1,000 characters, freshness
 * checks for ETags we do not send); skipping it raised the authenticated read's throughput by about a
 * tenth. Node drops the body of a HEAD answer itself.
 */
function send(res: Response, status: number, body: string, headers?: Record<string, string>): void {
  if (headers) res.set(headers);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}

function renderReply(reply: Reply): { status: number; body: string } {
  return { status: reply.status, body: JSON.stringify(successBody(reply.data, reply.message)) };
}

function mountRoute(app: Express, route: AnyRoute, deps: AppDeps, rateLimit: RateLimit): void {
  const path = route.path.replace(/\{(\w+)\}/g, ":$1");
  const clientRateLimit = route.limitPerClient ? perClientRateLimit(deps.rateLimitPerMinute) : undefined;
  // One handler per route: authentication, the rate limit, validation, then the route's own work.
  app[route.method](path, async (req: Request, res: Response) => {
    if (route.nestedErrors) res.locals.nestedErrors = true;
    let merchantOrUndefined: AuthenticatedMerchant | undefined;
    if (route.auth) {
      merchantOrUndefined = await authenticate(deps.db, req);
      rateLimit(merchantOrUndefined.keyId, res);
    } else if (clientRateLimit) {
      clientRateLimit(req.ip ?? req.socket.remoteAddress ?? "", res);
    }
    const params = route.params ? parseOrThrow(route.params, req.params, "path") : {};
    const query = route.query ? parseOrThrow(route.query, req.query ?? {}, "query") : {};
    const idempotencyKey = route.idempotent ? validateIdempotencyKey(req.get("x-idempotency-key")) : undefined;
    const body = route.body ? parseOrThrow(route.body, req.body, "body") : undefined;
    const requestContext = (): PrepareContext<unknown, unknown, unknown> => ({
      req,
      res,
      deps,
      get merchant(): AuthenticatedMerchant {
        if (!merchantOrUndefined)
          throw new AppError("internal_error", "route without authentication asked for a merchant");
        return merchantOrUndefined;
      },
      params,
      query,
      body,
    });
    const prepared: Reservation | undefined = route.prepare ? await route.prepare(requestContext()) : undefined;
    const context = (sql: Queryable): HandlerContext<unknown, unknown, unknown, unknown> =>
      Object.assign(requestContext(), { sql, prepared });

    if (idempotencyKey !== undefined && merchantOrUndefined) {
      let stored: StoredResponse;
      try {
        stored = await runIdempotent(
          deps.db,
          {
            merchantId: merchantOrUndefined.merchantId,
            key: idempotencyKey,
            method: req.method,
            path: req.path,
            body: req.body,
          },
          async (sql) => renderReply(await route.handler(context(sql))),
          (error) => renderError(error, { nested: route.nestedErrors === true }),
          { startBeforeClaim: route.writesOnlyThroughSql === true },
        );
      } catch (error) {
        // A 409 on the key (another body, still in progress) rolled the whole transaction back.
        if (isClientError(error)) prepared?.release();
        throw error;
      }
      // A replay did not run the operation; a recorded 4xx rolled its writes back.
      if (stored.replayed || stored.status >= 300) prepared?.release();
      send(res, stored.status, stored.body, stored.replayed ? { "Idempotent-Replayed": "true" } : undefined);
      return;
    }
    let reply: Reply;
    try {
      reply = await route.handler(context(deps.db));
    } catch (error) {
      if (isClientError(error)) prepared?.release();
      throw error;
    }
    if (reply.raw) {
      if (reply.headers) res.set(reply.headers);
      res.status(reply.status).type(reply.raw.contentType).send(reply.raw.body);
      return;
    }
    const rendered = renderReply(reply);
    send(res, rendered.status, rendered.body, reply.headers);
  });
}

/** The Express app: every route of the API, one error mapping, request ids, no stack trace ever out. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requestLogging(app, deps.logger));
  // Before the body parser and authentication: in production every sandbox path is 403, whatever is sent.
  app.use("/v1/sandbox", sandboxRoutesGuard(deps.environment));
  app.use(express.json({ limit: deps.bodyLimit ?? "64kb" }));
  const rateLimit = perKeyRateLimit(deps.rateLimitPerMinute);
  for (const route of allRoutes) mountRoute(app, route, deps, rateLimit);
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new NotFoundError("Route")));
  app.use(errorHandler);
  return app;
}
