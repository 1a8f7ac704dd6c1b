import type { Queryable } from "@mp/db";
import { type Page, pageOf } from "../http/envelope.ts";
import { offsetOf, type Pagination } from "../http/pagination.ts";
import type { SqlFilters } from "./sql-filters.ts";

/** What one list endpoint reads: its table, columns, filters, order and row mapping. */
export interface PageQuery<Row, Item> {
  /** The FROM clause, with the alias the filters use if any (`wallets w`). */
  from: string;
  columns: string;
  where: SqlFilters;
  /** Newest first with a unique tie-break, so pages never overlap (default `created_at DESC, id DESC`). */
  orderBy?: string;
  /** The page's rows as resources (async where a second read completes them: wallets' destinations). */
  toItems: (rows: Row[]) => Item[] | Promise<Item[]>;
}

/**
 * One page of a list endpoint (spec 2.1): the count of every matching row, then the page's rows
 * under the same filters, both in `sql` (the same snapshot inside a transaction).
 */
export async function listPage<Row extends object, Item>(
  sql: Queryable,
  query: PageQuery<Row, Item>,
  page: Pagination,
): Promise<Page<Item>> {
  const { where } = query;
  const count = await sql.query<{ total: string }>(
    `SELECT count(*) AS total FROM ${query.from} ${where.where}`,
    where.params,
  );
  // Taken after the count ran: its parameters are the filters' alone.
  const limit = where.param(page.limit);
  const offset = where.param(offsetOf(page));
  const rows = await sql.query<Row>(
    `SELECT ${query.columns} FROM ${query.from} ${where.where} ORDER BY ${query.orderBy ?? "created_at DESC, id DESC"} LIMIT ${limit} OFFSET ${offset}`,
    where.params,
  );
  return pageOf(await query.toItems(rows.rows), Number(count.rows[0]?.total ?? 0), page.limit, page.page);
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
