import { NotFoundError, ValidationError } from "@mp/core";
import express, {
  type ErrorRequestHandler,
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from "express";
import { type AuthenticatedMerchant, type Authentication, authenticateRequest } from "./auth/authenticate.ts";
import { VerifiedKeys } from "./auth/verified-keys.ts";
import type { AppDeps } from "./deps.ts";
import { successBody } from "./http/envelope.ts";
import { errorHandler, isClientError, renderError } from "./http/error-handler.ts";
import { perClientRateLimit, perKeyRateLimit } from "./http/rate-limit.ts";
import { requestLogging } from "./http/request-context.ts";
import type { AnyRoute, Reply } from "./http/route.ts";
import { RouteContext } from "./http/route-context.ts";
import { parseOrThrow } from "./http/validate.ts";
import { OneRequestPerKey } from "./idempotency/one-request-per-key.ts";
import { runIdempotent, validateIdempotencyKey } from "./idempotency/run-idempotent.ts";
import { allRoutes } from "./routes.ts";
import { sandboxRoutesGuard } from "./sandbox/sandbox-routes-guard.ts";

type RateLimit = ReturnType<typeof perKeyRateLimit>;

/** State the app keeps across requests besides AppDeps: made once by createApp. */
interface Guards {
  rateLimit: RateLimit;
  oneRequestPerKey: OneRequestPerKey;
  verifiedKeys: VerifiedKeys;
}

/** A validated request: its context, and the idempotency key of an idempotent route. */
interface AdmittedRequest {
  context: RouteContext;
  idempotency: { merchantId: string; key: string } | undefined;
}

/** What goes out: a serialised body and how to label it. */
interface Answer {
  status: number;
  body: string;
  contentType: string;
  headers?: Record<string, string> | undefined;
  /** The stored answer of an earlier request with the same idempotency key. */
  replayed: boolean;
}

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Writes an answer with node's own `end`. Express's `send` adds work none of our answers need
 * (content negotiation of the charset, a Buffer copy of every body over 1,000 characters, freshness
 * checks for ETags we do not send); skipping it raised the authenticated read's throughput by about a
 * tenth. Node drops the body of a HEAD answer itself.
 */
function send(res: Response, answer: Answer): void {
  if (answer.headers) res.set(answer.headers);
  res.statusCode = answer.status;
  res.setHeader("Content-Type", answer.contentType);
  res.setHeader("Content-Length", Buffer.byteLength(answer.body));
  res.end(answer.body);
}

function renderReply(reply: Reply): Answer {
  if (reply.raw) {
    const { contentType, body } = reply.raw;
    const labelled = /charset=/i.test(contentType) ? contentType : `${contentType}; charset=utf-8`;
    return { status: reply.status, body, contentType: labelled, headers: reply.headers, replayed: false };
  }
  const body = JSON.stringify(successBody(reply.data, reply.message));
  return { status: reply.status, body, contentType: JSON_TYPE, headers: reply.headers, replayed: false };
}

/** The rate limit, then validation of the path, query, idempotency key and body (after authentication). */
function admit(
  route: AnyRoute,
  deps: AppDeps,
  rateLimit: RateLimit,
  clientRateLimit: RateLimit | undefined,
  merchant: AuthenticatedMerchant | undefined,
  req: Request,
  res: Response,
): AdmittedRequest {
  if (merchant) {
    rateLimit(merchant.keyId, res);
  } else if (clientRateLimit) {
    clientRateLimit(req.ip ?? req.socket.remoteAddress ?? "", res);
  }
  const params = route.params ? parseOrThrow(route.params, req.params, "path") : {};
  const query = route.query ? parseOrThrow(route.query, req.query ?? {}, "query") : {};
  const key = route.idempotent ? validateIdempotencyKey(req.get("x-idempotency-key")) : undefined;
  const body = route.body ? parseOrThrow(route.body, req.body, "body") : undefined;
  return {
    context: new RouteContext(req, res, deps, merchant, params, query, body, key),
    idempotency: key !== undefined && merchant ? { merchantId: merchant.merchantId, key } : undefined,
  };
}

/**
 * A route's lifecycle once its request is admitted, in order:
 * 1. `prepare` reserves, through the pool, what the handler will need (before any transaction);
 * 2. the handler runs: on an idempotent route inside runIdempotent's transaction, so its writes and
 *    its recorded answer commit together (with `writesOnlyThroughSql` its first statement travels
 *    with the key's claim); elsewhere on the pool;
 * 3. the reservation is given back when the answer shows it went unused: a replay, or a 4xx (answered
 *    or thrown: its writes were rolled back). After a 5xx it is kept, as the outcome is unknown.
 */
async function perform(route: AnyRoute, request: AdmittedRequest, deps: AppDeps): Promise<Answer> {
  const { context, idempotency } = request;
  if (route.prepare) context.prepared = await route.prepare(context);
  let answer: Answer;
  try {
    if (idempotency) {
      const { req } = context;
      const stored = await runIdempotent(
        deps.db,
        { ...idempotency, method: req.method, path: req.path, body: req.body, keyring: deps.encryption },
        async (sql) => {
          context.sql = sql;
          return renderReply(await route.handler(context));
        },
        (error) => renderError(error, { nested: route.nestedErrors === true }),
        { startBeforeClaim: route.writesOnlyThroughSql === true, sealAnswer: route.secretInAnswer === true },
      );
      answer = {
        status: stored.status,
        body: stored.body,
        contentType: JSON_TYPE,
        headers: stored.replayed ? { "Idempotent-Replayed": "true" } : undefined,
        replayed: stored.replayed,
      };
    } else {
      answer = renderReply(await route.handler(context));
    }
  } catch (error) {
    if (isClientError(error)) context.prepared?.release();
    throw error;
  }
  if (answer.replayed || answer.status >= 400) context.prepared?.release();
  return answer;
}

/** Errors of this request use the nested form (set first, so the body parser's errors do too). */
const nestedErrors: RequestHandler = (_req, res, next) => {
  res.locals.nestedErrors = true;
  next();
};

function mountRoute(app: Express, route: AnyRoute, deps: AppDeps, guards: Guards, json: RequestHandler): void {
  // Keyless routes that cost work (GET /v1/chains): each has its own budget per client address.
  const clientRateLimit = route.limitPerClient ? perClientRateLimit(deps.rateLimitPerMinute) : undefined;
  const path = route.path.replace(/\{(\w+)\}/g, ":$1");
  // A body is read only where the route takes one: elsewhere it is ignored, whatever it holds.
  const before = [...(route.nestedErrors ? [nestedErrors] : []), ...(route.body ? [json] : [])];
  // Past a key's time bound, reads start before its lookup has answered (authenticateRequest); writes wait for it.
  const pipelined = route.method === "get";
  app[route.method](path, ...before, async (req: Request, res: Response) => {
    // Synchronous for a key verified within its time bound: no promise to wait for on most requests.
    const pending = route.auth ? authenticateRequest(deps.db, req, guards.verifiedKeys, pipelined) : undefined;
    const auth: Authentication | undefined = pending instanceof Promise ? await pending : pending;
    let answer: Answer;
    try {
      const request = admit(route, deps, guards.rateLimit, clientRateLimit, auth?.merchant, req, res);
      const idempotency = request.idempotency;
      answer = idempotency
        ? await guards.oneRequestPerKey.run(idempotency.merchantId, idempotency.key, () =>
            perform(route, request, deps),
          )
        : await perform(route, request, deps);
    } catch (error) {
      // A key found revoked by its lookup gets its 401, whatever the route would have said.
      if (auth?.confirmed) await auth.confirmed;
      throw error;
    }
    if (auth?.confirmed) await auth.confirmed;
    send(res, answer);
  });
}

const decodes = (value: string): boolean => {
  try {
    decodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
};

/**
 * The router percent-decodes path parameters before any handler runs: a malformed encoding
 * (`/v1/customers/%ED%A0%80`) reaches the error handlers as a nameless URIError. This names the
 * parameter (a 400 like any invalid parameter), in the error form of the route it was meant for.
 */
function malformedPathParameter(routes: readonly AnyRoute[]): ErrorRequestHandler {
  const templates = routes
    .filter((route) => route.params)
    .map((route) => {
      const segments = route.path.split("/").map((segment) => {
        const parameter = /^\{(\w+)\}$/.exec(segment)?.[1];
        return parameter ? `(?<${parameter}>[^/]+)` : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      });
      // As the router matches: any case, an optional trailing slash.
      return { route, pattern: new RegExp(`^${segments.join("/")}/?$`, "i") };
    });
  return (error, req, res, next) => {
    if (!(error instanceof URIError)) return next(error);
    const method = req.method === "HEAD" ? "get" : req.method.toLowerCase();
    for (const { route, pattern } of templates) {
      if (route.method !== method) continue;
      const groups = pattern.exec(req.path)?.groups ?? {};
      const name = Object.keys(groups).find((key) => !decodes(groups[key] ?? ""));
      if (name === undefined) continue;
      if (route.nestedErrors) res.locals.nestedErrors = true;
      return next(new ValidationError(`${name}: malformed percent-encoding`, name));
    }
    // No route of this method has this path (the router decodes before it looks at the method).
    next(new NotFoundError("Route"));
  };
}

/** The Express app: every route of the API, one error mapping, request ids, no stack trace ever out. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requestLogging(app, deps.logger));
  const json = express.json({ limit: deps.bodyLimit ?? "64kb" });
  const guards: Guards = {
    rateLimit: perKeyRateLimit(deps.rateLimitPerMinute),
    oneRequestPerKey: new OneRequestPerKey(),
    verifiedKeys: new VerifiedKeys(deps.apiKeyCache),
  };
  // Before the body parser and authentication: in production every sandbox path is 403, whatever is sent.
  app.use("/v1/sandbox", sandboxRoutesGuard(deps.environment));
  for (const route of allRoutes) mountRoute(app, route, deps, guards, json);
  app.use((_req: Request, _res: Response, next: NextFunction) => next(new NotFoundError("Route")));
  app.use(malformedPathParameter(allRoutes));
  app.use(errorHandler);
  return app;
}
