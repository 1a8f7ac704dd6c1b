import { NotFoundError } from "@mp/core";
import type { ZodObject, ZodType } from "zod";
import { pageSchema } from "../openapi/page-schema.ts";
import type { GetQuery, ListQuery } from "../shared/list-page.ts";
import { type Pagination, paginationQuery } from "./pagination.ts";
import { defineRoute, type HandlerContext, type Reply, type RouteDefinition } from "./route.ts";

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
    // `then` rather than an async wrapper: one promise less on every read.
    handler: (ctx) => read(ctx).then(ok),
  });
}

const ok = (data: unknown): Reply => ({ status: 200, data });

/**
 * GET of one of the merchant's resources: `find` answers it, or null when the merchant has no such
 * resource (another merchant's id included), which is a 404 naming `notFound` (always documented;
 * `errorStatuses` lists the others).
 */
export function defineGetRoute<P, Q = unknown>(
  route: ReadRouteDefinition<P, Q> & {
    notFound: string;
    find: (ctx: HandlerContext<P, Q, unknown>) => Promise<unknown>;
  },
): RouteDefinition<P, Q> {
  const { notFound, find, errorStatuses = [], ...definition } = route;
  const existing = (found: unknown): unknown => {
    if (found === null || found === undefined) throw new NotFoundError(notFound);
    return found;
  };
  return defineReadRoute({ ...definition, errorStatuses: [404, ...errorStatuses] }, (ctx) => find(ctx).then(existing));
}

/**
 * GET of a page of the merchant's resources (spec 2.1): its query is limit, page and the `filters`
 * (if any), its answer a page of `item`; `list` answers the page (a store's defineListQuery).
 */
export function defineListRoute<P, Q extends object = object>(
  route: Omit<ReadRouteDefinition<P, unknown>, "query" | "response"> & {
    item: ZodType;
    filters?: (ZodObject & ZodType<Q>) | undefined;
    list: (ctx: HandlerContext<P, Pagination & Q, unknown>) => Promise<unknown>;
  },
): RouteDefinition<P, Pagination & Q> {
  const { item, filters, list, ...definition } = route;
  // zod cannot type extending a shape that is generic here: the output is the page's fields and the filters'.
  const query = (filters ? paginationQuery.extend(filters.shape) : paginationQuery) as unknown as ZodType<
    Pagination & Q
  >;
  return defineReadRoute({ ...definition, query, response: pageSchema(item) }, list);
}

/** The path parameter `params` validates: its one key (`customer_id`), named in `path`. */
function idKey<I>(params: ZodObject, path: string): keyof I {
  const [id, ...others] = Object.keys(params.shape);
  if (id === undefined || others.length > 0) throw new Error(`${path}: params must have exactly one key, the id`);
  return id as keyof I;
}

/**
 * GET of a page of the resources under one of the merchant's resources, whose id is the one key of
 * `params` (`/v1/customers/{customer_id}/verification-submissions`): `parent` (the parent's get
 * query) looks it up first, unknown being a 404 naming `notFound`; then `read` (a defineListQuery
 * whose owner is the parent's id column) answers the page, as defineListRoute.
 */
export function defineNestedListRoute<I extends Record<string, string>, Q extends object = object>(
  route: Omit<ReadRouteDefinition<I, unknown>, "query" | "response" | "params"> & {
    params: ZodObject & ZodType<I>;
    item: ZodType;
    filters?: ZodObject & ZodType<Q>;
    parent: GetQuery<unknown>;
    notFound: string;
    read: ListQuery<unknown, Q>;
  },
): RouteDefinition<I, Pagination & Q> {
  const { parent, notFound, read, errorStatuses = [], ...definition } = route;
  const id = idKey<I>(route.params, route.path);
  return defineListRoute<I, Q>({
    ...definition,
    errorStatuses: [404, ...errorStatuses],
    list: async ({ merchant, params, query, sql }) => {
      const parentId = params[id] as string;
      const found = await parent(sql, merchant.merchantId, parentId);
      if (found === null || found === undefined) throw new NotFoundError(notFound);
      return read(sql, parentId, query);
    },
  });
}

/** What defineResourceReads states of each of its two routes. */
interface ReadOperation {
  operationId: string;
  summary: string;
  /** Documented error statuses besides the common ones (and the get's 404). */
  errorStatuses?: number[];
}

/**
 * The list and get routes of a resource the merchant owns, from one description: `GET {path}`
 * answers a page of `item` (the store's `list.read`, a defineListQuery, with `list.filters` besides
 * limit and page) and `GET {path}/{id}` one of them (the store's `get.read`, a defineGetQuery;
 * unknown is a 404 naming `notFound`), `id` being the one key of `params`. Reads only: their
 * handlers may start before the key's lookup has answered (authenticateRequest). This is how a new resource's reads are written; a nested
 * resource, or one whose reads need more than its store's queries, uses defineListRoute and defineGetRoute.
 */
export function defineResourceReads<Q extends object, I extends Record<string, string>>(resource: {
  path: string;
  tag: string;
  item: ZodType;
  params: ZodObject & ZodType<I>;
  notFound: string;
  list: ReadOperation & { filters?: ZodObject & ZodType<Q>; read: ListQuery<unknown, Q> };
  get: ReadOperation & { read: GetQuery<unknown> };
}): [list: RouteDefinition<unknown, Pagination & Q>, get: RouteDefinition<I>] {
  const { path, tag, item, params, notFound, list, get } = resource;
  const id = idKey<I>(params, path);
  return [
    defineListRoute<unknown, Q>({
      path,
      tag,
      item,
      operationId: list.operationId,
      summary: list.summary,
      errorStatuses: list.errorStatuses ?? [],
      filters: list.filters,
      list: (ctx) => list.read(ctx.sql, ctx.merchant.merchantId, ctx.query),
    }),
    defineGetRoute<I>({
      path: `${path}/{${String(id)}}`,
      tag,
      params,
      response: item,
      notFound,
      operationId: get.operationId,
      summary: get.summary,
      errorStatuses: get.errorStatuses ?? [],
      find: (ctx) => get.read(ctx.sql, ctx.merchant.merchantId, ctx.params[id] as string),
    }),
  ];
}
