import { AppError } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { Request, Response } from "express";
import type { AuthenticatedMerchant } from "../auth/authenticated-merchant.ts";
import type { AppDeps } from "../deps.ts";
import type { HandlerContext, Reservation } from "./route.ts";

/**
 * What `prepare` and the handler of one admitted request see: one object per request, made by
 * admit (app.ts). A class rather than an object literal with a getter, rebuilt for each step as
 * before: that cost an accessor object, a spread and three closures per request on the hottest
 * path (docs/benchmarks.md, `api`). `sql` is the pool until an idempotent route's transaction
 * hands its client over; `prepared` is what the route's `prepare` returned.
 */
export class RouteContext implements HandlerContext<unknown, unknown, unknown, unknown> {
  sql: Queryable;
  prepared: Reservation | undefined = undefined;

  constructor(
    readonly req: Request,
    readonly res: Response,
    readonly deps: AppDeps,
    private readonly authenticated: AuthenticatedMerchant | undefined,
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    readonly idempotencyKey: string | undefined,
  ) {
    this.sql = deps.db;
  }

  /** On the prototype, so spreading a context never calls it; a route without authentication has none. */
  get merchant(): AuthenticatedMerchant {
    if (!this.authenticated) throw new AppError("internal_error", "route without authentication asked for a merchant");
    return this.authenticated;
  }
}
