import type { Queryable } from "@mp/db";
import type { Request, Response } from "express";
import type { ZodType } from "zod";
import type { AuthenticatedMerchant } from "../auth/authenticate.ts";
import type { AppDeps } from "../deps.ts";

/** What a handler answers: a status and the `data` of the envelope (or a raw body). */
export interface Reply {
  status: number;
  data: unknown;
  message?: string;
  headers?: Record<string, string>;
  /** A non-JSON answer (Prometheus text) or a body that is not enveloped (the OpenAPI document). */
  raw?: { contentType: string; body: string };
}

export interface HandlerContext<P, Q, B> {
  req: Request;
  res: Response;
  deps: AppDeps;
  /** Present on routes with `auth: true`. */
  merchant: AuthenticatedMerchant;
  params: P;
  query: Q;
  body: B;
  /**
   * Where the handler reads and writes: the transaction of the idempotency record on idempotent
   * routes (so the effect and its recorded answer commit together), the pool elsewhere.
   */
  sql: Queryable;
}

/**
 * One route of the API. The same definition mounts the Express handler, validates the request and
 * generates the OpenAPI document, so schema and behaviour cannot drift apart.
 */
export interface RouteDefinition<P = unknown, Q = unknown, B = unknown> {
  method: "get" | "post";
  /** OpenAPI form: /v1/customers/{customer_id} */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  auth: boolean;
  /** POST creates: X-Idempotency-Key required, replayed on retry. */
  idempotent?: boolean;
  /** Kept for old clients; answered with a Deprecation header and marked in OpenAPI. */
  deprecated?: boolean;
  /** Errors of this route use the nested form (the address endpoint). */
  nestedErrors?: boolean;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
  /** Schema of `data` in the success envelope (documentation). */
  response: ZodType;
  successStatus: number;
  /** Error statuses this route documents besides the common ones. */
  errorStatuses?: number[];
  handler: (ctx: HandlerContext<P, Q, B>) => Promise<Reply>;
}

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of routes with their own types.
export type AnyRoute = RouteDefinition<any, any, any>;

export function defineRoute<P, Q, B>(route: RouteDefinition<P, Q, B>): RouteDefinition<P, Q, B> {
  return route;
}
