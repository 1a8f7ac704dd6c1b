import type { Reservation } from "./reservation.ts";
import { defineRoute, type HandlerContext, type RouteDefinition } from "./route.ts";

/** What an idempotent POST states itself: its path, documentation, schemas, statuses and its effect. */
type IdempotentPostDefinition<P, B, R extends Reservation | undefined, D> = Omit<
  RouteDefinition<P, unknown, B, R>,
  "method" | "auth" | "idempotent" | "query" | "handler"
> & {
  /** The envelope's message: fixed, or said of what `perform` answered. */
  message: string | ((data: D) => string);
  /**
   * The effect, through `ctx.sql` (the idempotency record's transaction, so the effect and its
   * recorded answer commit together): answers the `data` of `successStatus`.
   */
  perform: (ctx: HandlerContext<P, unknown, B, R>) => Promise<D>;
};

/**
 * A POST that changes something (creates a resource, queues a delivery): authenticated, with its
 * X-Idempotency-Key required and its answer replayed on retry (runIdempotent). Every such route
 * answers one status with a message; one answering either of two statuses uses defineRoute.
 */
export function defineIdempotentPost<P, B, R extends Reservation | undefined = undefined, D = unknown>(
  route: IdempotentPostDefinition<P, B, R, D>,
): RouteDefinition<P, unknown, B, R> {
  const { message, perform, ...definition } = route;
  return defineRoute<P, unknown, B, R>({
    ...definition,
    method: "post",
    auth: true,
    idempotent: true,
    handler: async (ctx) => {
      const data = await perform(ctx);
      return { status: route.successStatus, data, message: typeof message === "string" ? message : message(data) };
    },
  });
}

/**
 * POST {resource}/{id}/{verb}: moves one of the merchant's resources to another state (cancel,
 * disable) by writes through `ctx.sql` only; 200 with the resource, 404 for an unknown one, 409 for
 * one whose state does not allow it.
 */
export function defineStateChangeRoute<P>(
  route: Omit<
    IdempotentPostDefinition<P, unknown, undefined, unknown>,
    "writesOnlyThroughSql" | "successStatus" | "errorStatuses" | "body" | "prepare"
  >,
): RouteDefinition<P, unknown, unknown> {
  return defineIdempotentPost<P, unknown>({
    ...route,
    writesOnlyThroughSql: true,
    successStatus: 200,
    errorStatuses: [404, 409],
  });
}
