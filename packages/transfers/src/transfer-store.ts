import { iso } from "@mp/core";
import { insertReturning, type Queryable } from "@mp/db";
import { appendResourceEvent } from "@mp/events";
import {
  type StoredTransferReturn,
  TRANSFER_RETURNS_SQL,
  toTransferReturn,
} from "./deposit-returns/transfer-returns.ts";
import type { QuoteRow } from "./quote-store.ts";
import { toMoney, toQuoteResource } from "./quote-store.ts";
import type { TransferResource } from "./resources.ts";
import type { FundingMode, IntentStatus, TransferStatus } from "./statuses.ts";

/** A transfer with its quote's figures (one join: a transfer never changes them). */
export type TransferRow = Omit<QuoteRow, "id" | "used_at"> & {
  id: string;
  quote_id: string;
  status: TransferStatus;
  funding_mode: FundingMode;
  hold_id: string | null;
  updated_at: Date;
  /** Why a FAILED transfer failed (migrations/0155), or why a REFUNDED one's payout came back; null otherwise. */
  failure_reason: string | null;
  /** Its payments sent back to their payers (deposit-returns/transfer-returns.ts); absent on a new transfer. */
  returns?: StoredTransferReturn[];
};

export const TRANSFER_FROM = "transfers t JOIN transfer_quotes q ON q.id = t.quote_id";
/**
 * The status a read answers: an unfunded transfer past its expires_at is EXPIRED even before the
 * transfer executor has recorded it (reads write nothing; the executor expires it within a tick).
 */
export const SEEN_STATUS =
  "CASE WHEN t.status = 'AWAITING_MERCHANT_FUNDING' AND t.expires_at <= now() THEN 'EXPIRED' ELSE t.status END";
const transferColumns = (
  status: string,
) => `t.id, t.quote_id, t.merchant_id, t.customer_id, ${status} AS status, t.funding_mode, t.hold_id,
  t.failure_reason, t.expires_at, t.created_at, t.updated_at, q.source_method, q.source_asset, q.source_network, q.source_decimals,
  q.source_amount::text AS source_amount, q.fee_amount::text AS fee_amount, q.destination_kind, q.destination_asset,
  q.destination_network, q.destination_decimals, q.destination_amount::text AS destination_amount,
  q.destination_address, q.destination_bank_mask, q.beneficiary_ciphertext IS NOT NULL AS beneficiary_on_file,
  q.rate_value, q.source_usd_micros::text AS source_usd_micros,
  q.fee_usd_micros::text AS fee_usd_micros, ${TRANSFER_RETURNS_SQL} AS returns`;
/** Columns as stored (what writers lock and decide on) and as a read shows them. */
const TRANSFER_COLUMNS = transferColumns("t.status");
export const SEEN_TRANSFER_COLUMNS = transferColumns(SEEN_STATUS);

export function toTransferResource(row: TransferRow): TransferResource {
  const quote = toQuoteResource({ ...row, id: row.quote_id, used_at: row.created_at });
  return {
    id: row.id,
    quote_id: row.quote_id,
    customer_id: row.customer_id,
    status: row.status,
    funding_mode: row.funding_mode,
    source: quote.source,
    destination: quote.destination,
    source_amount: quote.source_amount,
    fee: quote.fee,
    destination_amount: quote.destination_amount,
    rate: quote.rate,
    failure_reason: row.status === "FAILED" || row.status === "REFUNDED" ? row.failure_reason : null,
    returns: (row.returns ?? []).map(toTransferReturn),
    expires_at: iso(row.expires_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/**
 * Transfer `id` of this merchant with its quote, or undefined: another merchant's transfer looks
 * exactly like a missing one. `FOR UPDATE` locks the transfer's row and answers it as stored (for a
 * writer); without it, as a read shows it (SEEN_STATUS).
 */
export async function findTransfer(
  sql: Queryable,
  merchantId: string,
  id: string,
  lock?: "FOR UPDATE",
): Promise<TransferRow | undefined> {
  const result = await sql.query<TransferRow>(
    lock
      ? `SELECT ${TRANSFER_COLUMNS} FROM ${TRANSFER_FROM} WHERE t.merchant_id = $1 AND t.id = $2 FOR UPDATE OF t`
      : `SELECT ${SEEN_TRANSFER_COLUMNS} FROM ${TRANSFER_FROM} WHERE t.merchant_id = $1 AND t.id = $2`,
    [merchantId, id],
  );
  return result.rows[0];
}

/** Transfer `id` of this merchant as its resource, or undefined. */
export async function getTransfer(
  sql: Queryable,
  merchantId: string,
  id: string,
): Promise<TransferResource | undefined> {
  const row = await findTransfer(sql, merchantId, id);
  return row ? toTransferResource(row) : undefined;
}

/**
 * Moves the transfer to `to` (the database refuses a transition that is not one) and appends its
 * event. The executor's retry record (transfer-retries.ts) starts afresh in the new state.
 */
export async function moveTransfer(
  sql: Queryable,
  transfer: TransferRow,
  to: TransferStatus,
  event:
    | "transfer.funded"
    | "transfer.canceled"
    | "transfer.expired"
    | "transfer.processing"
    | "transfer.completed"
    | "transfer.failed"
    | "transfer.refunded",
  idempotencyKey?: string,
): Promise<TransferRow> {
  const result = await sql.query<{ updated_at: Date }>(
    `UPDATE transfers SET status = $2, updated_at = now(), execution_attempts = 0, next_attempt_at = NULL,
            last_error = NULL WHERE id = $1 RETURNING updated_at`,
    [transfer.id, to],
  );
  const moved: TransferRow = { ...transfer, status: to, updated_at: result.rows[0]?.updated_at ?? transfer.updated_at };
  await appendTransferEvent(sql, moved, event, idempotencyKey);
  return moved;
}

/** Ends the transfer FAILED with `reason` (shown as its failure_reason), event transfer.failed. */
export async function failTransfer(sql: Queryable, transfer: TransferRow, reason: string): Promise<TransferRow> {
  await sql.query("UPDATE transfers SET failure_reason = left($2, 500) WHERE id = $1", [transfer.id, reason]);
  return moveTransfer(sql, { ...transfer, failure_reason: reason.slice(0, 500) }, "FAILED", "transfer.failed");
}

export function appendTransferEvent(
  sql: Queryable,
  transfer: TransferRow,
  type:
    | "transfer.created"
    | "transfer.funding_received"
    | "transfer.funded"
    | "transfer.canceled"
    | "transfer.expired"
    | "transfer.late_funding"
    | "transfer.funding_reversed"
    | "transfer.processing"
    | "transfer.completed"
    | "transfer.failed"
    | "transfer.refunded",
  idempotencyKey?: string,
): Promise<void> {
  return appendResourceEvent(sql, transfer.merchant_id, type, toTransferResource(transfer), idempotencyKey);
}

/** A funding intent as stored (migrations/0121_transfers.sql). */
export interface IntentRow {
  id: string;
  transfer_id: string;
  merchant_id: string;
  status: IntentStatus;
  method: QuoteRow["source_method"];
  payer_type: "CUSTOMER" | "MERCHANT";
  required_amount: string;
  received_amount: string;
  asset: string;
  network: string;
  decimals: number;
  reference: string;
  narration: string;
  flag_code: "AMOUNT_MISMATCH" | "LATE_PAYMENT" | "FUNDING_REVERSED" | null;
  flag_message: string | null;
  expires_at: Date;
  /** CRYPTO_DEPOSIT: the destination (address of ours) the customer pays to; null while being provisioned. */
  deposit_destination_id: string | null;
}

const intentColumns = (status: string) => `id, transfer_id, merchant_id, ${status} AS status, method, payer_type,
  required_amount::text AS required_amount, received_amount::text AS received_amount, asset, network, decimals,
  reference, narration, flag_code, flag_message, expires_at, deposit_destination_id`;
const INTENT_COLUMNS = intentColumns("status");
/** As a read shows it: a PENDING intent past its expiry (its transfer's) is EXPIRED (SEEN_STATUS). */
const SEEN_INTENT_COLUMNS = intentColumns(
  "CASE WHEN status = 'PENDING' AND expires_at <= now() THEN 'EXPIRED' ELSE status END",
);

/** An amount of the intent's asset for a flag's message: "40.00 USD". */
export function describeAmount(intent: IntentRow, units: bigint): string {
  return `${toMoney(intent.asset, intent.network, units, intent.decimals).value} ${intent.asset}`;
}

export async function insertIntent(
  sql: Queryable,
  intent: Omit<IntentRow, "status" | "received_amount" | "flag_code" | "flag_message" | "deposit_destination_id">,
): Promise<IntentRow> {
  return insertReturning<IntentRow>(
    sql,
    `INSERT INTO funding_intents (id, transfer_id, merchant_id, status, method, payer_type, required_amount, asset,
       network, decimals, reference, narration, expires_at)
     VALUES ($1, $2, $3, 'PENDING', $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ${INTENT_COLUMNS}`,
    [
      intent.id,
      intent.transfer_id,
      intent.merchant_id,
      intent.method,
      intent.payer_type,
      intent.required_amount,
      intent.asset,
      intent.network,
      intent.decimals,
      intent.reference,
      intent.narration,
      intent.expires_at,
    ],
  );
}

/**
 * The intent of a transfer (`FOR UPDATE` to change it: always after the transfer's own lock, and as
 * stored; without it, as a read shows it).
 */
export async function findIntentOfTransfer(
  sql: Queryable,
  transferId: string,
  lock?: "FOR UPDATE",
): Promise<IntentRow | undefined> {
  const result = await sql.query<IntentRow>(
    lock
      ? `SELECT ${INTENT_COLUMNS} FROM funding_intents WHERE transfer_id = $1 FOR UPDATE`
      : `SELECT ${SEEN_INTENT_COLUMNS} FROM funding_intents WHERE transfer_id = $1`,
    [transferId],
  );
  return result.rows[0];
}

/** The intent a payment reference names, for one merchant (references are matched without case or spaces). */
export async function findIntentByReference(
  sql: Queryable,
  merchantId: string,
  reference: string,
): Promise<IntentRow | undefined> {
  const result = await sql.query<IntentRow>(
    `SELECT ${INTENT_COLUMNS} FROM funding_intents WHERE merchant_id = $1 AND reference = upper(btrim($2))`,
    [merchantId, reference],
  );
  return result.rows[0];
}

export async function updateIntent(
  sql: Queryable,
  intentId: string,
  change: {
    status: IntentStatus;
    receivedAmount: bigint;
    flag: { code: NonNullable<IntentRow["flag_code"]>; message: string } | null;
  },
): Promise<void> {
  await sql.query(
    `UPDATE funding_intents SET status = $2, received_amount = $3, flag_code = $4, flag_message = $5, updated_at = now()
     WHERE id = $1`,
    [
      intentId,
      change.status,
      change.receivedAmount.toString(),
      change.flag?.code ?? null,
      change.flag?.message ?? null,
    ],
  );
}
