import { type ChainId, formatUsd } from "@mp/core";
import type { Queryable } from "@mp/db";
import {
  DEPOSIT_COLUMNS as COLUMNS,
  type DepositResource,
  type DepositRow,
  depositsOfWallet,
  toDepositResource,
} from "@mp/events";
import type { IndexerState } from "../deps.ts";
import type { Page } from "../http/envelope.ts";
import type { Pagination } from "../http/pagination.ts";
import { findResource, listPage, type ResourceTable } from "../shared/list-page.ts";
import { SqlFilters } from "../shared/sql-filters.ts";

/**
 * Deposits as answered when the indexers are at `states`: their confirmations count from the heads
 * the indexers last saw (none yet for a chain whose indexer has not read its head).
 */
function depositsAt(states: readonly IndexerState[]): ResourceTable<DepositRow, DepositResource> {
  const heads = new Map<ChainId, number>();
  for (const state of states) {
    if (state.headHeight !== null) heads.set(state.chain, state.headHeight);
  }
  return { from: "deposits", columns: COLUMNS, toItems: (rows) => rows.map((row) => toDepositResource(row, heads)) };
}

export interface DepositFilters {
  chain?: ChainId | undefined;
  status?: string | undefined;
  tx_hash?: string | undefined;
  wallet_id?: string | undefined;
  customer_id?: string | undefined;
}

export function listDeposits(
  sql: Queryable,
  merchantId: string,
  filters: DepositFilters & Pagination,
  states: readonly IndexerState[],
): Promise<Page<DepositResource>> {
  const where = new SqlFilters().add("merchant_id = $?", merchantId).equal(filters, "chain", "status", "customer_id");
  if (filters.wallet_id !== undefined) where.addClause(depositsOfWallet(where.param(filters.wallet_id)));
  if (filters.tx_hash !== undefined) {
    // EVM hashes are hex (any case); other chains' ids are compared exactly.
    where.addClause(
      `(tx_hash = ${where.param(filters.tx_hash)} OR tx_hash = ${where.param(filters.tx_hash.toLowerCase())})`,
    );
  }
  return listPage(sql, depositsAt(states), where, filters);
}

export function findDeposit(
  sql: Queryable,
  merchantId: string,
  depositId: string,
  states: readonly IndexerState[],
): Promise<DepositResource | undefined> {
  return findResource(sql, depositsAt(states), merchantId, depositId);
}

/** Unconfirmed deposits of a merchant, summed per asset (for the balance's `pending`). */
export async function pendingByAsset(
  sql: Queryable,
  merchantId: string,
): Promise<Array<{ asset: string; decimals: number; amountRaw: bigint }>> {
  const rows = await sql.query<{ asset: string; decimals: number; total: string }>(
    `SELECT asset, decimals, sum(amount_raw) AS total FROM deposits
     WHERE merchant_id = $1 AND status = 'PENDING' GROUP BY asset, decimals`,
    [merchantId],
  );
  return rows.rows.map((r) => ({ asset: r.asset, decimals: r.decimals, amountRaw: BigInt(r.total) }));
}

/** What the dashboard's deposits page searches by, besides chain and status (all optional). */
export interface DepositSearch extends Pick<DepositFilters, "chain" | "status" | "tx_hash" | "customer_id"> {
  /** The sending or receiving address (hex compared in any case). */
  address?: string | undefined;
  /** An amount in whole units of the deposit's asset ("25" finds 25.000000 USDC and 25 ETH). */
  amount?: string | undefined;
  created_from?: string | undefined;
  created_to?: string | undefined;
}

function searchDeposits(merchantId: string, filters: DepositSearch): SqlFilters {
  const where = new SqlFilters()
    .add("merchant_id = $?", merchantId)
    .equal(filters, "chain", "status", "customer_id")
    .createdWithin(filters);
  if (filters.tx_hash !== undefined) {
    const hash = where.param(filters.tx_hash);
    where.addClause(`(tx_hash = ${hash} OR tx_hash = lower(${hash}))`);
  }
  if (filters.address !== undefined) {
    const address = where.param(filters.address);
    where.addClause(
      `(to_address = ${address} OR from_address = ${address} OR (${address} ~* '^0x[0-9a-f]+$' AND (lower(to_address) = lower(${address}) OR lower(from_address) = lower(${address}))))`,
    );
  }
  if (filters.amount !== undefined) {
    where.addClause(`amount_raw = ${where.param(filters.amount)}::numeric * power(10::numeric, decimals)`);
  }
  return where;
}

/**
 * A keyset page of the merchant's deposits (the dashboard's deposits page): newest first, the
 * `limit` rows strictly after deposit `after` in that order. OFFSET would read and drop every
 * earlier row, so page 2,000 of 100,000 deposits would cost what the whole list costs; the cursor is
 * a deposit id, resolved to its exact (created_at, id) in SQL so microseconds are never rounded.
 * `next` is the last item's id when more rows follow. Filtered as `DepositSearch` says.
 */
export async function listDepositsAfter(
  sql: Queryable,
  merchantId: string,
  filters: DepositSearch & { limit: number; after?: string | undefined },
  states: readonly IndexerState[],
): Promise<{ items: DepositResource[]; next: string | null }> {
  const where = searchDeposits(merchantId, filters);
  if (filters.after !== undefined) {
    const after = where.param(filters.after);
    where.addClause(
      `(created_at, id) < (SELECT created_at, id FROM deposits WHERE id = ${after} AND merchant_id = $1)`,
    );
  }
  const table = depositsAt(states);
  const rows = await sql.query<DepositRow>(
    `SELECT ${table.columns} FROM deposits ${where.where} ORDER BY created_at DESC, id DESC LIMIT ${where.param(filters.limit + 1)}`,
    where.params,
  );
  const more = rows.rows.length > filters.limit;
  const items = await table.toItems(rows.rows.slice(0, filters.limit), sql);
  return { items, next: more ? (items.at(-1)?.id ?? null) : null };
}

/**
 * The merchant's deposit volume per UTC day over the last `days` days (the overview's chart): the
 * USD value of the deposits received that day (priced ones; a deposit still awaiting its rate counts
 * once priced) as a decimal string, and how many arrived. Days without deposits are absent.
 */
export async function depositVolumeByDay(
  sql: Queryable,
  merchantId: string,
  days: number,
): Promise<Array<{ day: string; amount_usd: string; count: number }>> {
  const { rows } = await sql.query<{ day: string; micros: string; count: number }>(
    `SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
            coalesce(sum(amount_usd_micros), 0)::text AS micros, count(*)::int AS count
       FROM deposits
      WHERE merchant_id = $1 AND status <> 'REVERSED'
        AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - make_interval(days => $2)
      GROUP BY 1 ORDER BY 1`,
    [merchantId, days - 1],
  );
  return rows.map((row) => ({ day: row.day, amount_usd: formatUsd(BigInt(row.micros)), count: row.count }));
}
