import type { ChainId } from "@mp/core";
import type { Queryable } from "@mp/db";
import { DEPOSIT_COLUMNS as COLUMNS, type DepositResource, type DepositRow, toDepositResource } from "@mp/events";
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
  const where = new SqlFilters()
    .add("merchant_id = $?", merchantId)
    .equal(filters, "chain", "status", "wallet_id", "customer_id");
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
