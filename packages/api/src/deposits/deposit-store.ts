import { type ChainId, formatUsd, unitsToDecimal } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { Page } from "../http/envelope.ts";
import type { Pagination } from "../http/pagination.ts";
import { listPage } from "../shared/list-page.ts";
import { iso, SqlFilters } from "../shared/sql-filters.ts";
import type { DepositResource } from "./deposit-schemas.ts";

interface DepositRow {
  id: string;
  merchant_id: string;
  wallet_id: string;
  customer_id: string | null;
  chain: ChainId;
  asset: string;
  contract_address: string | null;
  from_address: string | null;
  to_address: string;
  tx_hash: string;
  block_height: string;
  decimals: number;
  amount_raw: string;
  required_confirmations: number;
  status: DepositResource["status"];
  hold_status: DepositResource["hold_status"];
  held_reason: DepositResource["held_reason"];
  usd_rate: string | null;
  amount_usd_micros: string | null;
  fee_usd_micros: string | null;
  net_amount_usd_micros: string | null;
  confirmed_at: Date | null;
  reversed_at: Date | null;
  awaiting_rate_since: Date | null;
  created_at: Date;
}

const COLUMNS = `id, merchant_id, wallet_id, customer_id, chain, asset, contract_address, from_address, to_address,
  tx_hash, block_height, decimals, amount_raw, required_confirmations, status, hold_status, held_reason, usd_rate, amount_usd_micros,
  fee_usd_micros, net_amount_usd_micros, confirmed_at, reversed_at, awaiting_rate_since, created_at`;

const usd = (micros: string | null) => (micros === null ? null : formatUsd(BigInt(micros)));

/** `heads`: each chain's latest known height, for live confirmations. */
export function toDepositResource(row: DepositRow, heads: ReadonlyMap<ChainId, number>): DepositResource {
  const height = Number(row.block_height);
  const head = heads.get(row.chain);
  const depth = row.status === "REVERSED" || head === undefined ? 0 : Math.max(0, head - height + 1);
  // A pending deposit never shows the required count before the indexer has credited it; a
  // confirmed one keeps counting with the chain.
  const confirmations =
    row.status === "PENDING"
      ? Math.min(depth, row.required_confirmations - 1)
      : row.status === "CONFIRMED"
        ? Math.max(depth, row.required_confirmations)
        : 0;
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    wallet_id: row.wallet_id,
    customer_id: row.customer_id,
    chain: row.chain,
    asset: row.asset,
    contract_address: row.contract_address,
    from_address: row.from_address,
    to_address: row.to_address,
    tx_hash: row.tx_hash,
    block_height: height,
    confirmations,
    required_confirmations: row.required_confirmations,
    amount: unitsToDecimal(BigInt(row.amount_raw), row.decimals),
    amount_raw: row.amount_raw,
    amount_usd: usd(row.amount_usd_micros),
    fee_usd: usd(row.fee_usd_micros),
    net_amount_usd: usd(row.net_amount_usd_micros),
    usd_rate: row.usd_rate,
    status: row.status,
    awaiting_rate: row.status === "PENDING" && row.awaiting_rate_since !== null,
    // A reversed deposit is no longer held: its money left the chain (and merchant_held with it).
    held: row.hold_status === "HELD" && row.status === "CONFIRMED",
    hold_status: row.hold_status,
    held_reason: row.held_reason,
    confirmed_at: row.confirmed_at ? iso(row.confirmed_at) : null,
    reversed_at: row.reversed_at ? iso(row.reversed_at) : null,
    created_at: iso(row.created_at),
  };
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
  heads: ReadonlyMap<ChainId, number>,
): Promise<Page<DepositResource>> {
  const where = new SqlFilters()
    .add("merchant_id = $?", merchantId)
    .add("chain = $?", filters.chain)
    .add("status = $?", filters.status)
    .add("wallet_id = $?", filters.wallet_id)
    .add("customer_id = $?", filters.customer_id);
  if (filters.tx_hash !== undefined) {
    // EVM hashes are hex (any case); other chains' ids are compared exactly.
    where.addClause(
      `(tx_hash = ${where.param(filters.tx_hash)} OR tx_hash = ${where.param(filters.tx_hash.toLowerCase())})`,
    );
  }
  return listPage<DepositRow, DepositResource>(
    sql,
    {
      from: "deposits",
      columns: COLUMNS,
      where,
      toItems: (rows) => rows.map((row) => toDepositResource(row, heads)),
    },
    filters,
  );
}

export async function findDeposit(
  sql: Queryable,
  merchantId: string,
  depositId: string,
  heads: ReadonlyMap<ChainId, number>,
): Promise<DepositResource | undefined> {
  const result = await sql.query<DepositRow>(`SELECT ${COLUMNS} FROM deposits WHERE merchant_id = $1 AND id = $2`, [
    merchantId,
    depositId,
  ]);
  const row = result.rows[0];
  return row ? toDepositResource(row, heads) : undefined;
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
