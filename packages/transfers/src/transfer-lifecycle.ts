import { randomBytes, randomUUID } from "node:crypto";
import { ConflictError, type Logger, NotFoundError, QuoteExpiredError } from "@mp/core";
import { type Database, insertReturning, type Queryable } from "@mp/db";
import { placeHold, releaseHold } from "@mp/ledger";
import { openFundingAddress } from "./funding-address.ts";
import type { ReservedFundingSlot } from "./funding-wallets.ts";
import { assertAboveMinimum } from "./quote-minimums.ts";
import { findQuote } from "./quote-store.ts";
import { assertTransferAllowed } from "./transfer-kyc-gate.ts";
import { DUE_FOR_TRY, eachTransfer, selectTransferRefs } from "./transfer-retries.ts";
import {
  appendTransferEvent,
  describeAmount,
  findIntentOfTransfer,
  findTransfer,
  type IntentRow,
  insertIntent,
  moveTransfer,
  type TransferRow,
  updateIntent,
} from "./transfer-store.ts";

/** The hold of a BALANCE transfer: the merchant's available USD reserved at creation. */
const balanceHoldId = (transferId: string) => `transfer:${transferId}`;

/** Base32 without look-alikes' trouble: what a payer types into a bank form's reference field. */
const REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** A fresh payment reference: TRF + 12 characters (60 bits: never guessed, unique by constraint). */
function newReference(): string {
  const bytes = randomBytes(12);
  let reference = "TRF";
  for (const byte of bytes) reference += REFERENCE_ALPHABET[byte % REFERENCE_ALPHABET.length];
  return reference;
}

async function expired(sql: Queryable, expiresAt: Date): Promise<boolean> {
  // The database's clock decides, as for every other time limit of the service.
  const result = await sql.query<{ expired: boolean }>("SELECT now() >= $1::timestamptz AS expired", [expiresAt]);
  return result.rows[0]?.expired === true;
}

/**
 * POST /v1/transfers: uses the quote once (locked, then marked used) and creates the transfer in
 * AWAITING_MERCHANT_FUNDING with its PENDING funding intent. A BALANCE transfer places its hold
 * first (nothing written when the balance is short: 422 insufficient_funds), then is FUNDED at once,
 * both transitions recorded.
 */
export async function createTransfer(
  sql: Queryable,
  input: {
    merchantId: string;
    quoteId: string;
    fundingTtlSeconds: number;
    idempotencyKey?: string | undefined;
    /** CRYPTO_DEPOSIT: the wallet slot reserved for the intent's address; none: provisioned later. */
    fundingSlot?: ReservedFundingSlot | undefined;
  },
): Promise<TransferRow> {
  const quote = await findQuote(sql, input.merchantId, input.quoteId, "FOR UPDATE");
  if (!quote) throw new NotFoundError("Quote");
  if (quote.used_at !== null) throw new ConflictError("The quote has already been used by a transfer");
  if (await expired(sql, quote.expires_at)) throw new QuoteExpiredError();
  // A quote made before the chain minimums were checked: the chain's floor again (quote-minimums.ts).
  if (quote.destination_kind === "CRYPTO_ADDRESS") {
    const destination = {
      asset: quote.destination_asset,
      network: quote.destination_network,
      decimals: quote.destination_decimals,
    };
    assertAboveMinimum("destination_amount", destination, BigInt(quote.destination_amount));
  }
  await assertTransferAllowed(sql, input.merchantId, quote.customer_id, quote.source_method, quote.destination_kind);

  const id = randomUUID();
  const balance = quote.source_method === "BALANCE";
  const holdId = balance ? balanceHoldId(id) : null;
  if (holdId) {
    await placeHold(sql, { holdId, merchantId: input.merchantId, amountUsdMicros: BigInt(quote.source_usd_micros) });
  }
  await sql.query("UPDATE transfer_quotes SET used_at = now() WHERE id = $1", [quote.id]);
  const times = await insertReturning<{ expires_at: Date; created_at: Date; updated_at: Date }>(
    sql,
    `INSERT INTO transfers (id, merchant_id, customer_id, quote_id, status, funding_mode, hold_id, expires_at)
     VALUES ($1, $2, $3, $4, 'AWAITING_MERCHANT_FUNDING', $5, $6, now() + make_interval(secs => $7))
     RETURNING expires_at, created_at, updated_at`,
    [
      id,
      input.merchantId,
      quote.customer_id,
      quote.id,
      balance ? "BALANCE" : "TRANSFER_JIT",
      holdId,
      input.fundingTtlSeconds,
    ],
  );
  let transfer: TransferRow = {
    ...quote,
    ...times,
    id,
    quote_id: quote.id,
    status: "AWAITING_MERCHANT_FUNDING",
    funding_mode: balance ? "BALANCE" : "TRANSFER_JIT",
    hold_id: holdId,
    failure_reason: null,
  };
  const reference = newReference();
  const intent = await insertIntent(sql, {
    id: randomUUID(),
    transfer_id: id,
    merchant_id: input.merchantId,
    method: quote.source_method,
    payer_type: balance ? "MERCHANT" : "CUSTOMER",
    required_amount: quote.source_amount,
    asset: quote.source_asset,
    network: quote.source_network,
    decimals: quote.source_decimals,
    reference,
    narration: `Transfer ${reference}`,
    expires_at: times.expires_at,
  });
  if (intent.method === "CRYPTO_DEPOSIT" && input.fundingSlot) {
    await openFundingAddress(sql, transfer, intent, input.fundingSlot);
  }
  await appendTransferEvent(sql, transfer, "transfer.created", input.idempotencyKey);
  if (balance) {
    await updateIntent(sql, intent.id, {
      status: "FUNDED",
      receivedAmount: BigInt(intent.required_amount),
      flag: null,
    });
    transfer = await moveTransfer(sql, transfer, "FUNDED", "transfer.funded", input.idempotencyKey);
  }
  return transfer;
}

/**
 * The ledger holds a transfer stands on: its BALANCE hold, or one per customer credit applied to it
 * (but a reversed chain deposit's hold released when its reversal was seen: fund-from-crypto-deposits.ts).
 */
export async function fundingHoldIds(sql: Queryable, transfer: TransferRow): Promise<string[]> {
  if (transfer.hold_id) return [transfer.hold_id];
  const credits = await sql.query<{ hold_id: string }>(
    `SELECT c.hold_id FROM funding_intent_credits c JOIN funding_intents i ON i.id = c.intent_id
       JOIN ledger_holds h ON h.id = c.hold_id
      WHERE i.transfer_id = $1 AND NOT (c.reversed_at IS NOT NULL AND h.status = 'RELEASED')
      ORDER BY c.created_at, c.hold_id`,
    [transfer.id],
  );
  return credits.rows.map((row) => row.hold_id);
}

/** Gives back what a transfer holds to the merchant's available balance. */
export async function releaseFunding(sql: Queryable, transfer: TransferRow): Promise<void> {
  for (const holdId of await fundingHoldIds(sql, transfer)) {
    await releaseHold(sql, { holdId, merchantId: transfer.merchant_id });
  }
}

/**
 * Ends an unfunded transfer: its intent and the transfer leave their states together, whatever the
 * customer paid so far goes back to the merchant's available balance (its holds released), flagged.
 * The caller holds the transfer's lock.
 */
async function endUnfunded(
  sql: Queryable,
  transfer: TransferRow,
  intent: IntentRow,
  to: "CANCELED" | "EXPIRED",
  idempotencyKey?: string,
): Promise<TransferRow> {
  await releaseFunding(sql, transfer);
  const received = BigInt(intent.received_amount);
  const flag =
    received > 0n && transfer.funding_mode === "TRANSFER_JIT"
      ? {
          code: "AMOUNT_MISMATCH" as const,
          message: `Received ${describeAmount(intent, received)} of ${describeAmount(intent, BigInt(intent.required_amount))} before the intent was ${to}; what arrived was added to the merchant's available balance`,
        }
      : intent.flag_code && intent.flag_message
        ? { code: intent.flag_code, message: intent.flag_message }
        : null;
  if (intent.status === "PENDING") await updateIntent(sql, intent.id, { status: to, receivedAmount: received, flag });
  return moveTransfer(sql, transfer, to, to === "CANCELED" ? "transfer.canceled" : "transfer.expired", idempotencyKey);
}

/**
 * POST /v1/transfers/{id}/cancel: only before the funds arrived (AWAITING_MERCHANT_FUNDING), or a
 * BALANCE transfer not yet executing (its hold is released). The transfer's row lock orders it with
 * a funding credit: exactly one of them wins.
 */
export async function cancelTransfer(
  sql: Queryable,
  input: { merchantId: string; transferId: string; idempotencyKey?: string | undefined },
): Promise<TransferRow> {
  const transfer = await findTransfer(sql, input.merchantId, input.transferId, "FOR UPDATE");
  if (!transfer) throw new NotFoundError("Transfer");
  const intent = await findIntentOfTransfer(sql, transfer.id, "FOR UPDATE");
  if (!intent) throw new Error(`transfer ${transfer.id} has no funding intent`);
  if (transfer.status === "AWAITING_MERCHANT_FUNDING" && (await expired(sql, transfer.expires_at))) {
    await endUnfunded(sql, transfer, intent, "EXPIRED");
    throw new ConflictError("The transfer has expired");
  }
  const cancelable =
    transfer.status === "AWAITING_MERCHANT_FUNDING" ||
    (transfer.status === "FUNDED" && transfer.funding_mode === "BALANCE");
  if (!cancelable)
    throw new ConflictError(`The transfer is ${transfer.status}; only a transfer awaiting funds can be canceled`);
  return endUnfunded(sql, transfer, intent, "CANCELED", input.idempotencyKey);
}

/** Expires the transfer if it is still unfunded past its expires_at; the caller holds its lock. */
export async function expireIfDue(sql: Queryable, transfer: TransferRow, intent: IntentRow): Promise<TransferRow> {
  if (transfer.status !== "AWAITING_MERCHANT_FUNDING" || !(await expired(sql, transfer.expires_at))) return transfer;
  return endUnfunded(sql, transfer, intent, "EXPIRED");
}

/**
 * Expires every unfunded transfer past its expiry (up to `limit`, oldest deadline first), each in its
 * own transaction under its lock (the transfer executor's pass: reads write nothing and show such a
 * transfer EXPIRED meanwhile). A transfer funded meanwhile is left as it is (expireIfDue checks again
 * under the lock).
 */
export async function expireDueTransfers(db: Database, limit: number, logger?: Logger): Promise<number> {
  const refs = await selectTransferRefs(
    db,
    `SELECT t.id, t.merchant_id FROM transfers t
      WHERE t.status = 'AWAITING_MERCHANT_FUNDING' AND t.expires_at <= now() AND ${DUE_FOR_TRY}
      ORDER BY t.expires_at LIMIT $1`,
    [limit],
  );
  return eachTransfer(
    db,
    refs,
    "expiry",
    (ref) =>
      db.tx(async (client) => {
        const transfer = await findTransfer(client, ref.merchantId, ref.id, "FOR UPDATE");
        const intent = transfer && (await findIntentOfTransfer(client, ref.id, "FOR UPDATE"));
        return transfer && intent ? (await expireIfDue(client, transfer, intent)) !== transfer : false;
      }),
    { logger },
  );
}
