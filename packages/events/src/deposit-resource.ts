import { CHAIN_IDS, type ChainId, formatUsd, iso, unitsToDecimal } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import { insertEventsFrom } from "./append-event.ts";
import type { EventType } from "./event-types.ts";

/**
 * The deposit's API form, here rather than in @mp/api: the API answers it (GET /v1/deposits) and the
 * indexer and the ledger, which must not import the API, put it in the events of the changes they
 * make. One shape, rendered twice: here for the API's reads, and by the database for the events
 * (deposit_resource, migrations/0390), in the statement that appends them, so a catch-up's batch is
 * not read out, rendered and parsed again; packages/events/test/deposit-resource-sql.test.ts holds
 * the two equal on random rows, so an event's `data` is exactly what GET returns.
 */
export const DEPOSIT_STATUSES = ["PENDING", "CONFIRMED", "REVERSED"] as const;
export const HOLD_STATUSES = ["HELD", "RELEASED", "RETURNED"] as const;

const decimal = z.string().regex(/^-?\d+\.\d+$/);

export const depositResource = z.object({
  id: z.uuid(),
  merchant_id: z.uuid(),
  wallet_id: z.uuid(),
  customer_id: z.uuid().nullable(),
  chain: z.enum(CHAIN_IDS),
  asset: z.string(),
  contract_address: z.string().nullable().describe("Token contract or mint; null for the chain's native coin"),
  from_address: z.string().nullable(),
  to_address: z.string(),
  tx_hash: z.string(),
  block_height: z.number().int(),
  confirmations: z.number().int().describe("Live: blocks since the deposit's block, including it"),
  required_confirmations: z.number().int(),
  amount: decimal.describe("At least six fractional digits, more only where the asset has them; never rounded"),
  amount_raw: z.string().regex(/^\d+$/).describe("Integer amount in the asset's smallest units"),
  amount_usd: decimal.nullable().describe("Fixed when the deposit confirms; null while pending"),
  fee_usd: decimal.nullable(),
  net_amount_usd: decimal.nullable(),
  usd_rate: z.string().nullable().describe("USD per whole unit used at confirmation"),
  status: z.enum(DEPOSIT_STATUSES),
  awaiting_rate: z
    .boolean()
    .describe(
      "PENDING with its confirmations, but its asset has no usable USD rate (none quoted, a stale or refused feed): credited at the first fresh one",
    ),
  held: z
    .boolean()
    .describe(
      "Credited but held out of available (the customer's verification was rejected, or its sender is on a sanctions list: held_reason) until an operator acts",
    ),
  hold_status: z
    .enum(HOLD_STATUSES)
    .nullable()
    .describe("null: never held; HELD; RELEASED to available; RETURNED: owed back to the payer"),
  held_reason: z.enum(["customer_rejected", "sanctions_match"]).nullable(),
  confirmed_at: z.iso.datetime().nullable(),
  reversed_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export type DepositResource = z.infer<typeof depositResource>;

export interface DepositRow {
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

/** The columns toDepositResource reads, unqualified (a list's FROM is `deposits`). */
export const DEPOSIT_COLUMNS = `id, merchant_id, wallet_id, customer_id, chain, asset, contract_address, from_address, to_address,
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

/**
 * The INSERT of deposit events rendered where the rows are: deposit_resource (migrations/0390),
 * toDepositResource's shape in SQL, over each deposit as this transaction sees it now, its
 * confirmations counted from its chain's head in chain_cursors.
 */
const APPEND_DEPOSIT_EVENTS = insertEventsFrom(`SELECT gen_random_uuid() AS id, d.merchant_id, c.type,
         'deposit' AS object_type, d.id::text AS object_id, deposit_resource(d, cc.head_height) AS data,
         $2::text AS idempotency_key, c.ord
    FROM json_to_recordset($1::json) AS c(deposit_id uuid, type text, ord int)
    JOIN deposits d ON d.id = c.deposit_id
    LEFT JOIN chain_cursors cc ON cc.chain = d.chain`);

/**
 * Appends the events of changes to deposits, in the caller's transaction (which holds the rows'
 * locks): each deposit as it now is, its confirmations counted from the head the indexer last
 * recorded for its chain (chain_cursors, written before a tick records or confirms anything).
 * One statement for any number of deposits, which renders them itself: sent right after the
 * statement that changes them (the connection pipelines), it sees their change. Versions follow the
 * order given, also for two events of one deposit (`deposit.confirmed`, then `deposit.held`).
 */
export async function appendDepositEvents(
  client: Queryable,
  changes: ReadonlyArray<{ type: EventType; depositId: string }>,
  idempotencyKey: string | null = null,
): Promise<void> {
  if (changes.length === 0) return;
  const result = await client.query(APPEND_DEPOSIT_EVENTS, [
    JSON.stringify(changes.map((change, ord) => ({ deposit_id: change.depositId, type: change.type, ord }))),
    idempotencyKey,
  ]);
  if (result.rowCount !== changes.length) {
    throw new Error(`appendDepositEvents: ${changes.length - (result.rowCount ?? 0)} deposits not found`);
  }
}
