import { unitsToDecimal } from "@mp/core";
import type { Queryable } from "@mp/db";
import { type Money, type Rate, toMoney } from "@mp/transfers";
import type { DrainFailureReason, DrainState, NotPaidReason } from "./statuses.ts";

/** A drain as the API answers it (GET /v1/liquidation-addresses/{id}/drains) and its events carry. */
export interface DrainResource {
  id: string;
  liquidation_address_id: string;
  deposit_id: string;
  state: DrainState;
  not_paid_reason: NotPaidReason | null;
  /** failed only: why (statuses.ts DRAIN_FAILURE_REASONS); the money stays on the merchant's balance. */
  failure_reason: DrainFailureReason | null;
  deposit: { network: string; asset: string; amount: string; tx_hash: string; usd_rate: string | null };
  /** The BALANCE transfer that pays it (null before payment_submitted, and when nothing is paid). */
  transfer_id: string | null;
  source_amount: Money | null;
  fee: Money | null;
  destination_amount: Money | null;
  rate: Rate | null;
  /** Every state the drain took, with its time, first to last. */
  states: { state: DrainState; at: string }[];
  /** The money sent back to the address's return_address (drain-returns.ts); null when none. */
  return: DrainReturn | null;
  created_at: string;
  updated_at: string;
}

/** A drain's return as answered: its deposit_returns row (origin liquidation). */
export interface DrainReturn {
  state: "payable" | "sending" | "returned";
  address: string | null;
  /** What the return_address gets (the deposit less network_fee); null while payable. */
  amount: Money | null;
  network_fee: Money;
  /** Why it stays payable (not more than its fee); null otherwise. */
  reason: string | null;
}

interface DrainRow {
  id: string;
  liquidation_address_id: string;
  merchant_id: string;
  deposit_id: string;
  state: DrainState;
  not_paid_reason: NotPaidReason | null;
  failure_reason: DrainFailureReason | null;
  transfer_id: string | null;
  created_at: Date;
  updated_at: Date;
  chain: string;
  asset: string;
  decimals: number;
  amount_raw: string;
  tx_hash: string;
  usd_rate: string | null;
  q_source_asset: string | null;
  q_source_network: string | null;
  q_source_decimals: number | null;
  q_source_amount: string | null;
  q_fee_amount: string | null;
  q_destination_asset: string | null;
  q_destination_network: string | null;
  q_destination_decimals: number | null;
  q_destination_amount: string | null;
  q_rate_value: string | null;
  states: { state: DrainState; at: string }[];
  r_state: DrainReturn["state"] | null;
  r_to: string | null;
  r_amount: string | null;
  r_fee: string | null;
  r_reason: string | null;
}

/** The drains' select: the drain, its deposit, its transfer's quote and its transitions. */
export const DRAIN_SELECT = `SELECT ld.id, ld.liquidation_address_id, ld.merchant_id, ld.deposit_id, ld.state,
    ld.not_paid_reason, ld.failure_reason, ld.transfer_id, ld.created_at, ld.updated_at,
    d.chain, d.asset, d.decimals, d.amount_raw::text, d.tx_hash, d.usd_rate,
    q.source_asset AS q_source_asset, q.source_network AS q_source_network, q.source_decimals AS q_source_decimals,
    q.source_amount::text AS q_source_amount, q.fee_amount::text AS q_fee_amount,
    q.destination_asset AS q_destination_asset, q.destination_network AS q_destination_network,
    q.destination_decimals AS q_destination_decimals, q.destination_amount::text AS q_destination_amount,
    q.rate_value AS q_rate_value,
    (SELECT json_agg(json_build_object('state', x.to_state, 'at', x.at) ORDER BY x.id)
       FROM liquidation_drain_transitions x WHERE x.drain_id = ld.id) AS states,
    r.state AS r_state, r.to_address AS r_to, r.amount_raw::text AS r_amount, r.fee_raw::text AS r_fee,
    r.reason AS r_reason
  FROM liquidation_drains ld
  JOIN deposits d ON d.id = ld.deposit_id
  LEFT JOIN deposit_returns r ON r.deposit_id = ld.deposit_id AND r.origin = 'liquidation'
  LEFT JOIN transfers t ON t.id = ld.transfer_id
  LEFT JOIN transfer_quotes q ON q.id = t.quote_id`;

const money = (asset: string | null, network: string | null, units: string | null, decimals: number | null) =>
  asset === null || network === null || units === null || decimals === null
    ? null
    : toMoney(asset, network, units, decimals);

function returnOf(row: DrainRow): DrainReturn | null {
  if (row.r_state === null || row.r_fee === null) return null;
  return {
    state: row.r_state,
    address: row.r_to,
    amount: money(row.asset, row.chain, row.r_amount, row.decimals),
    network_fee: toMoney(row.asset, row.chain, row.r_fee, row.decimals),
    reason: row.r_reason,
  };
}

export function toDrainResource(row: DrainRow): DrainResource {
  return {
    id: row.id,
    liquidation_address_id: row.liquidation_address_id,
    deposit_id: row.deposit_id,
    state: row.state,
    not_paid_reason: row.not_paid_reason,
    failure_reason: row.failure_reason,
    deposit: {
      network: row.chain,
      asset: row.asset,
      amount: unitsToDecimal(BigInt(row.amount_raw), row.decimals, 0),
      tx_hash: row.tx_hash,
      usd_rate: row.usd_rate,
    },
    transfer_id: row.transfer_id,
    source_amount: money(row.q_source_asset, row.q_source_network, row.q_source_amount, row.q_source_decimals),
    fee: money(row.q_source_asset, row.q_source_network, row.q_fee_amount, row.q_source_decimals),
    destination_amount: money(
      row.q_destination_asset,
      row.q_destination_network,
      row.q_destination_amount,
      row.q_destination_decimals,
    ),
    rate:
      row.q_rate_value === null || row.q_source_asset === null || row.q_destination_asset === null
        ? null
        : { base_currency: row.q_source_asset, quote_currency: row.q_destination_asset, value: row.q_rate_value },
    states: (row.states ?? []).map((s) => ({ state: s.state, at: new Date(s.at).toISOString() })),
    return: returnOf(row),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** One drain as answered, or undefined. */
export async function readDrain(sql: Queryable, drainId: string): Promise<DrainResource | undefined> {
  const { rows } = await sql.query<DrainRow>(`${DRAIN_SELECT} WHERE ld.id = $1`, [drainId]);
  return rows[0] ? toDrainResource(rows[0]) : undefined;
}

/** The drains of the rows given (in their order). */
export async function readDrains(sql: Queryable, ids: readonly string[]): Promise<DrainResource[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql.query<DrainRow>(`${DRAIN_SELECT} WHERE ld.id = ANY($1::uuid[])`, [ids]);
  const byId = new Map(rows.map((r) => [r.id, toDrainResource(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
