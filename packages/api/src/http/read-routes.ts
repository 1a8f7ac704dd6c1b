import { NotFoundError } from "@mp/core";
import { defineRoute, type HandlerContext, type RouteDefinition } from "./route.ts";

/** What a read route states itself: its path, documentation and schemas (always GET, authenticated, 200). */
type ReadRouteDefinition<P, Q> = Omit<
  RouteDefinition<P, Q>,
  "method" | "auth" | "successStatus" | "idempotent" | "writesOnlyThroughSql" | "body" | "prepare" | "handler"
>;

/** A read route: `read` answers the `data` of a 200. */
export function defineReadRoute<P, Q>(
  definition: ReadRouteDefinition<P, Q>,
  read: (ctx: HandlerContext<P, Q, unknown>) => Promise<unknown>,
): RouteDefinition<P, Q> {
  return defineRoute({
    ...definition,
    method: "get",
    auth: true,
    successStatus: 200,
    handler: async (ctx) => ({ status: 200, data: await read(ctx) }),
  });
}

/**
 * GET of one of the merchant's resources: `find` answers it, or null when the merchant has no such
 * resource (another merchant's id included), which is a 404 naming `notFound`.
 */
export function defineGetRoute<P, Q = unknown>(
  route: ReadRouteDefinition<P, Q> & {
    notFound: string;
    find: (ctx: HandlerContext<P, Q, unknown>) => Promise<unknown>;
  },
): RouteDefinition<P, Q> {
  const { notFound, find, ...definition } = route;
  return defineReadRoute(definition, async (ctx) => {
    const found = await find(ctx);
    if (found === null || found === undefined) throw new NotFoundError(notFound);
    return found;
  });
}

/** GET of a page of the merchant's resources: `list` answers the page (see listPage). */
export function defineListRoute<P, Q>(
  route: ReadRouteDefinition<P, Q> & { list: (ctx: HandlerContext<P, Q, unknown>) => Promise<unknown> },
): RouteDefinition<P, Q> {
  const { list, ...definition } = route;
  return defineReadRoute(definition, list);
}
