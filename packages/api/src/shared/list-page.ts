import type { Queryable } from "@mp/db";
import { type Page, pageOf } from "../http/envelope.ts";
import { offsetOf, type Pagination } from "../http/pagination.ts";
import { SqlFilters } from "./sql-filters.ts";

/** How the list and get endpoints of one resource read it: its table, columns, order and row mapping. */
export interface ResourceTable<Row, Item> {
  /** The FROM clause, with the alias the filters use if any (`wallets w`). */
  from: string;
  columns: string;
  /** Newest first with a unique tie-break, so pages never overlap (default `created_at DESC, id DESC`). */
  orderBy?: string;
  /** The rows as resources (async where a second read in `sql` completes them: wallets' destinations). */
  toItems: (rows: Row[], sql: Queryable) => Item[] | Promise<Item[]>;
}

/**
 * One page of a list endpoint (spec 2.1): the count of every row `where` matches, then the page's
 * rows under the same filters, both in `sql` (the same snapshot inside a transaction). Stores call
 * it themselves only where the table depends on the moment (deposits' confirmations); otherwise
 * defineListQuery.
 */
export async function listPage<Row extends object, Item>(
  sql: Queryable,
  table: ResourceTable<Row, Item>,
  where: SqlFilters,
  page: Pagination,
): Promise<Page<Item>> {
  const count = await sql.query<{ total: string }>(
    `SELECT count(*) AS total FROM ${table.from} ${where.where}`,
    where.params,
  );
  // Taken after the count ran: its parameters are the filters' alone.
  const limit = where.param(page.limit);
  const offset = where.param(offsetOf(page));
  const rows = await sql.query<Row>(
    `SELECT ${table.columns} FROM ${table.from} ${where.where} ORDER BY ${table.orderBy ?? "created_at DESC, id DESC"} LIMIT ${limit} OFFSET ${offset}`,
    where.params,
  );
  const items = await table.toItems(rows.rows, sql);
  return pageOf(items, Number(count.rows[0]?.total ?? 0), page.limit, page.page);
}

/** A store's list query: `(sql, ownerId, filters and page)` answers one page (defineListQuery makes one). */
export type ListQuery<Item, F = object> = (
  sql: Queryable,
  ownerId: string,
  filters: F & Pagination,
) => Promise<Page<Item>>;

/**
 * The list query of a resource, the one way a store writes it: the rows whose `owner` column is
 * the given id (`merchant_id`, or a parent's id such as `virtual_account_id` once the route checked
 * that parent is the merchant's), narrowed by `filter` from the validated query, one page of them.
 * Top-level resources pass it to defineResourceReads as `list.read`.
 *
 *     export const listThings = defineListQuery(THINGS, "merchant_id", (where, filters: ThingFilters) =>
 *       where.equal(filters, "status").createdWithin(filters),
 *     );
 */
export function defineListQuery<Row extends object, Item, F extends object = object>(
  table: ResourceTable<Row, Item>,
  owner: string,
  filter?: (where: SqlFilters, filters: F) => void,
): ListQuery<Item, F> {
  return (sql, ownerId, filters) => {
    const where = new SqlFilters().add(`${owner} = $?`, ownerId);
    filter?.(where, filters);
    return listPage(sql, table, where, filters);
  };
}

/** A store's get query: this merchant's row or resource `id`, or undefined (defineRowQuery, defineGetQuery). */
export type GetQuery<Item> = (sql: Queryable, merchantId: string, id: string) => Promise<Item | undefined>;

/**
 * The query of row `id` of this merchant in `from` (`FOR UPDATE` as `lock` to hold it for the
 * transaction): undefined for another merchant's row, which looks exactly like a missing one (isolation).
 */
export function defineRowQuery<Row extends object>(select: {
  from: string;
  columns: string;
  lock?: "FOR UPDATE";
}): GetQuery<Row> {
  const text = `SELECT ${select.columns} FROM ${select.from} WHERE merchant_id = $1 AND id = $2 ${select.lock ?? ""}`;
  return async (sql, merchantId, id) => (await sql.query<Row>(text, [merchantId, id])).rows[0];
}

/**
 * Resource `id` of this merchant, or undefined (another merchant's looks exactly like a missing one).
 * Stores call it themselves only where the table depends on the moment; otherwise defineGetQuery.
 */
export async function findResource<Row extends object, Item>(
  sql: Queryable,
  table: ResourceTable<Row, Item> & { lock?: "FOR UPDATE" },
  merchantId: string,
  id: string,
): Promise<Item | undefined> {
  const row = await defineRowQuery<Row>(table)(sql, merchantId, id);
  return row === undefined ? undefined : (await table.toItems([row], sql))[0];
}

/**
 * The get query of a resource, the one way a store writes it: this merchant's resource `id` as
 * `table` maps it, or undefined. Top-level resources pass it to defineResourceReads as `get.read`.
 */
export function defineGetQuery<Row extends object, Item>(
  table: ResourceTable<Row, Item> & { lock?: "FOR UPDATE" },
): GetQuery<Item> {
  return (sql, merchantId, id) => findResource(sql, table, merchantId, id);
}
