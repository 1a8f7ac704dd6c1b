import type { Queryable } from "@mp/db";
import { type Page, pageOf } from "../http/envelope.ts";
import { offsetOf, type Pagination } from "../http/pagination.ts";
import type { SqlFilters } from "./sql-filters.ts";

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
 * rows under the same filters, both in `sql` (the same snapshot inside a transaction).
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

/**
 * Row `id` of this merchant in `from` (`FOR UPDATE` as `lock` to hold it for the transaction), or
 * undefined: another merchant's row looks exactly like a missing one (isolation).
 */
export async function findOfMerchant<Row extends object>(
  sql: Queryable,
  select: { from: string; columns: string; lock?: "FOR UPDATE" },
  merchantId: string,
  id: string,
): Promise<Row | undefined> {
  const result = await sql.query<Row>(
    `SELECT ${select.columns} FROM ${select.from} WHERE merchant_id = $1 AND id = $2 ${select.lock ?? ""}`,
    [merchantId, id],
  );
  return result.rows[0];
}

/** Resource `id` of this merchant, or undefined (another merchant's looks exactly like a missing one). */
export async function findResource<Row extends object, Item>(
  sql: Queryable,
  table: ResourceTable<Row, Item> & { lock?: "FOR UPDATE" },
  merchantId: string,
  id: string,
): Promise<Item | undefined> {
  const row = await findOfMerchant<Row>(sql, table, merchantId, id);
  return row === undefined ? undefined : (await table.toItems([row], sql))[0];
}
