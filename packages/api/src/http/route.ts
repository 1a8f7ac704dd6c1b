import type { Queryable } from "@mp/db";
import type { Request, Response } from "express";
import type { ZodType } from "zod";
import type { AuthenticatedMerchant } from "../auth/authenticate.ts";
import type { AppDeps } from "../deps.ts";
import type { Reservation } from "./reservation.ts";

export type { Reservation };

/** What a handler answers: a status and the `data` of the envelope (or a raw body). */
export interface Reply {
  status: number;
  data: unknown;
  message?: string;
  headers?: Record<string, string>;
  /** A non-JSON answer (Prometheus text) or a body that is not enveloped (the OpenAPI document). */
  raw?: { contentType: string; body: string };
}

export interface HandlerContext<P, Q, B, R = undefined> {
  req: Request;
  res: Response;
  deps: AppDeps;
  /** Present on routes with `auth: true`. */
  merchant: AuthenticatedMerchant;
  params: P;
  query: Q;
  body: B;
  /**
   * The request's X-Idempotency-Key on idempotent routes (undefined elsewhere): stores record it in
   * the events of the changes the request makes.
   */
  idempotencyKey: string | undefined;
  /**
   * Where the handler reads and writes: the transaction of the idempotency record on idempotent
   * routes (so the effect and its recorded answer commit together), the pool elsewhere.
   */
  sql: Queryable;
  /** What the route's `prepare` returned (undefined on routes without one). */
  prepared: R;
}

/** The context of `prepare`: the validated request, before any transaction. */
export type PrepareContext<P, Q, B> = Omit<HandlerContext<P, Q, B>, "sql" | "prepared">;

/**
 * One route of the API. The same definition mounts the Express handler, validates the request and
 * generates the OpenAPI document, so schema and behaviour cannot drift apart. What runs when, from
 * authentication to the release of a reservation, reads top to bottom in app.ts (admit, perform).
 */
export interface RouteDefinition<P = unknown, Q = unknown, B = unknown, R extends Reservation | undefined = undefined> {
  method: "get" | "post" | "patch" | "delete";
  /** OpenAPI form: /v1/customers/{customer_id} */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  auth: boolean;
  /**
   * A public route that does real work (a query, a provider call): limited per client address, as
   * there is no key to count by (same limit as per key, RATE_LIMIT_PER_MINUTE).
   */
  limitPerClient?: boolean;
  /** POST creates: X-Idempotency-Key required, replayed on retry. */
  idempotent?: boolean;
  /** The answer shows a secret once: its idempotency record is stored sealed (runIdempotent). */
  secretInAnswer?: boolean;
  /**
   * The handler's only effects are writes through `ctx.sql` (no provider call, no job, no other
   * connection): it may start in the same round trip as the idempotency claim (see runIdempotent).
   */
  writesOnlyThroughSql?: boolean;
  /** Kept for old clients; answered with a Deprecation header and marked in OpenAPI. */
  deprecated?: boolean;
  /** Errors of this route use the nested form (the address endpoint). */
  nestedErrors?: boolean;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
  /** The success answer is a raw body of this type, not an envelope (its handler replies with `raw`). */
  rawContentType?: string;
  /** Error statuses the handler answers itself with a raw body of `rawContentType` (a page's 404). */
  rawErrorStatuses?: number[];
  /** Schema of `data` in the success envelope, or of the raw body (documentation). */
  response: ZodType;
  successStatus: number;
  /** Error statuses this route documents besides the common ones. */
  errorStatuses?: number[];
  /**
   * Runs after validation, before the idempotent transaction opens: for reservations that go through
   * the pool, which must not wait while a transaction holds a connection (the embedded database serves
   * one transaction at a time). The handler gets the result as `prepared`; when the answer shows it
   * went unused (replayed, or a 4xx) it is released. After a 5xx it is kept: the outcome is unknown.
   */
  prepare?: (ctx: PrepareContext<P, Q, B>) => Promise<R>;
  handler: (ctx: HandlerContext<P, Q, B, R>) => Promise<Reply>;
}

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of routes with their own types.
export type AnyRoute = RouteDefinition<any, any, any, any>;

export function defineRoute<P, Q, B, R extends Reservation | undefined = undefined>(
  route: RouteDefinition<P, Q, B, R>,
): RouteDefinition<P, Q, B, R> {
  return route;
}
