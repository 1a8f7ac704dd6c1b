import type { Queryable } from "@mp/db";
import { placeHold, releaseHold } from "@mp/ledger";
import { fundingValue, valueDue, valueShortFlag } from "./funding-value.ts";
import { expireIfDue, releaseFunding } from "./transfer-lifecycle.ts";
import {
  appendTransferEvent,
  describeAmount,
  failTransfer,
  findIntentOfTransfer,
  findTransfer,
  type IntentRow,
  moveTransfer,
  type TransferRow,
  updateIntent,
} from "./transfer-store.ts";

/** The transfer and intent a customer's payment funds, both locked for the payment's transaction. */
export interface FundingTarget {
  transfer: TransferRow;
  intent: IntentRow;
}

/**
 * Locks the transfer a payment funds (transfer row, then intent: the order of every writer of
 * transfers), before the payment touches the ledger: the ledger's balance rows are locked after, as
 * cancel and expiry lock them after the transfer, so no two of them wait on each other in a cycle. An
 * unfunded transfer past its expiry is expired here first: money arriving late never funds it at the
 * stale rate.
 */
export async function lockFundingTarget(
  sql: Queryable,
  merchantId: string,
  transferId: string,
): Promise<FundingTarget | undefined> {
  const transfer = await findTransfer(sql, merchantId, transferId, "FOR UPDATE");
  const intent = transfer && (await findIntentOfTransfer(sql, transferId, "FOR UPDATE"));
  if (!transfer || !intent) return undefined;
  const current = await expireIfDue(sql, transfer, intent);
  if (current === transfer) return { transfer, intent };
  const after = await findIntentOfTransfer(sql, transfer.id);
  return after ? { transfer: current, intent: after } : undefined;
}

/** A customer's payment for an intent: a bank credit naming its reference, or a confirmed chain deposit to its address. */
export interface FundingCredit {
  /** Which kind of money it is (the intent's method it can fund) and its row. */
  source: { method: "BANK_TRANSFER"; bankDepositId: string } | { method: "CRYPTO_DEPOSIT"; depositId: string };
  /** In the intent's smallest units (USD micros for a bank credit, the asset's units for a deposit). */
  amount: bigint;
  /** What `units` of it are worth in the ledger's USD micros (the part the hold reserves). */
  usdMicrosOf(units: bigint): bigint;
  /**
   * A crypto payment: the USD micros the intent's holds must reach (the quote's source value), the
   * payments being valued when they arrived (funding-value.ts). None for a bank payment (USD).
   */
  valueNeeded?: bigint;
}

/**
 * A payment (already posted to the merchant's available balance by its rail: bank_clearing or
 * deposit_clearing -> merchant_available) for `target`:
 * - intent PENDING and of the payment's method: the part still due is reserved for the transfer (a
 *   ledger hold per payment, exactly what arrived for it: no funds check, see placeHold); payments add
 *   up; short, the intent stays PENDING flagged AMOUNT_MISMATCH with the amounts received and still
 *   due; enough, the intent and the transfer are FUNDED; any excess stays available, flagged.
 * - intent FUNDED, EXPIRED or CANCELED (or of another method): the whole payment stays in the
 *   merchant's available balance, the intent flagged LATE_PAYMENT, with a transfer.late_funding event.
 * Every outcome is recorded per payment in funding_intent_credits (unique per payment: once). Returns
 * the part of the payment the intent took (0 for late money).
 */
export async function applyFundingCredit(
  sql: Queryable,
  target: FundingTarget,
  credit: FundingCredit,
): Promise<{ applied: bigint }> {
  const { transfer, intent } = target;
  const amount = credit.amount;
  const paymentId = "bankDepositId" in credit.source ? credit.source.bankDepositId : credit.source.depositId;
  if (intent.status !== "PENDING" || intent.method !== credit.source.method) {
    await recordCredit(sql, intent.id, credit, { applied: 0n, holdId: null });
    await updateIntent(sql, intent.id, {
      status: intent.status,
      receivedAmount: BigInt(intent.received_amount),
      flag: {
        code: "LATE_PAYMENT",
        message: `A payment of ${describeAmount(intent, amount)} arrived after the intent was ${intent.status}; it was added to the merchant's available balance`,
      },
    });
    await appendTransferEvent(sql, transfer, "transfer.late_funding");
    return { applied: 0n };
  }
  const required = BigInt(intent.required_amount);
  const before = BigInt(intent.received_amount);
  const unitsDue = required - before;
  const needed = credit.valueNeeded;
  const value = needed === undefined ? undefined : await fundingValue(sql, intent.id);
  let applied = amount < unitsDue ? amount : unitsDue;
  if (needed !== undefined && value) {
    // Worth less than the quote needs so far: as much more of this payment as covers the USD due.
    const due = valueDue(needed, value);
    const worth = credit.usdMicrosOf(amount);
    const forValue = worth > 0n ? (due * amount + worth - 1n) / worth : amount;
    if (forValue > applied) applied = forValue < amount ? forValue : amount;
  }
  const excess = amount - applied;
  const holdId = `transfer-funding:${paymentId}`;
  const held = credit.usdMicrosOf(applied);
  if (held > 0n) {
    await placeHold(sql, { holdId, merchantId: transfer.merchant_id, amountUsdMicros: held, justCredited: true });
  }
  await recordCredit(sql, intent.id, credit, { applied, holdId: held > 0n ? holdId : null });
  const received = before + applied < required ? before + applied : required;
  const after = value && { held: value.held + held, payments: value.payments + 1, applied: value.applied + applied };
  const short = needed !== undefined && after ? valueDue(needed, after) : 0n;
  if (received < required || short > 0n) {
    await updateIntent(sql, intent.id, {
      status: "PENDING",
      receivedAmount: received,
      flag:
        received < required || !after || needed === undefined
          ? shortFlag(intent, received)
          : valueShortFlag(intent, after, needed, short),
    });
    await appendTransferEvent(sql, transfer, "transfer.funding_received");
    return { applied };
  }
  await updateIntent(sql, intent.id, {
    status: "FUNDED",
    receivedAmount: received,
    flag:
      excess > 0n
        ? {
            code: "AMOUNT_MISMATCH",
            message: `Received ${describeAmount(intent, before + amount)} for ${describeAmount(intent, required)}; the excess ${describeAmount(intent, excess)} was added to the merchant's available balance`,
          }
        : null,
  });
  await moveTransfer(sql, transfer, "FUNDED", "transfer.funded");
  return { applied };
}

/** The flag of an intent that has `received` of its required amount so far (null when nothing). */
export function shortFlag(intent: IntentRow, received: bigint): { code: "AMOUNT_MISMATCH"; message: string } | null {
  if (received === 0n) return null;
  const required = BigInt(intent.required_amount);
  return {
    code: "AMOUNT_MISMATCH",
    message: `Received ${describeAmount(intent, received)} of ${describeAmount(intent, required)}; ${describeAmount(intent, required - received)} still due`,
  };
}

async function recordCredit(
  sql: Queryable,
  intentId: string,
  credit: FundingCredit,
  outcome: { applied: bigint; holdId: string | null },
): Promise<void> {
  const { source, amount } = credit;
  await sql.query(
    `INSERT INTO funding_intent_credits (bank_deposit_id, deposit_id, intent_id, outcome, amount, applied_amount,
       excess_amount, hold_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      "bankDepositId" in source ? source.bankDepositId : null,
      "depositId" in source ? source.depositId : null,
      intentId,
      outcome.applied > 0n ? "APPLIED" : "LATE",
      amount.toString(),
      outcome.applied.toString(),
      (amount - outcome.applied).toString(),
      outcome.holdId,
    ],
  );
}

/**
 * A payment applied to `target` (funding_intent_credits) whose money is gone: a chain deposit whose
 * block left the chain, its reversal posted by the indexer (available -> deposit_clearing). The caller
 * holds the transfer's lock (lockFundingTarget: an unfunded transfer past its expiry is expired first,
 * its holds released):
 * - transfer AWAITING_MERCHANT_FUNDING: the payment's hold is released (filling the gap the reversal
 *   left in available) and the intent is owed what it applied again;
 * - transfer FUNDED, not yet executing: it is never paid out with money that is gone, and a state is
 *   never re-entered, so it ends FAILED with all its holds released; the intent keeps its FUNDED
 *   record, flagged FUNDING_REVERSED;
 * - executing or ended: nothing is released (a payout in flight settles its holds; an ended
 *   transfer's were released); the merchant's available balance carries the reversal, as for any
 *   reversed deposit.
 * Every case appends transfer.funding_reversed; every movement is a balanced entry.
 */
export async function unapplyFundingCredit(
  sql: Queryable,
  target: FundingTarget,
  credit: { amount: bigint; applied: bigint; holdId: string | null },
): Promise<void> {
  const { transfer, intent } = target;
  const reversed = `A payment of ${describeAmount(intent, credit.amount)} was reversed by a chain reorganisation`;
  if (transfer.status === "AWAITING_MERCHANT_FUNDING" && intent.status === "PENDING") {
    if (credit.holdId) await releaseHold(sql, { holdId: credit.holdId, merchantId: transfer.merchant_id });
    // What the payments still standing applied (they may add up past the required amount when a
    // top-up covered a shortfall in value: funding-value.ts), at most the required amount.
    const standing = (await fundingValue(sql, intent.id)).applied;
    const required = BigInt(intent.required_amount);
    const received = standing < required ? standing : required;
    await updateIntent(sql, intent.id, {
      status: "PENDING",
      receivedAmount: received,
      flag: shortFlag(intent, received) ?? { code: "FUNDING_REVERSED", message: `${reversed}; nothing received` },
    });
  } else if (transfer.status === "FUNDED" && transfer.funding_mode === "TRANSFER_JIT") {
    if (credit.holdId) await releaseHold(sql, { holdId: credit.holdId, merchantId: transfer.merchant_id });
    await releaseFunding(sql, transfer);
    await updateIntent(sql, intent.id, {
      status: intent.status,
      receivedAmount: BigInt(intent.received_amount),
      flag: {
        code: "FUNDING_REVERSED",
        message: `${reversed} before the transfer was executed; the transfer failed and what else arrived was added to the merchant's available balance`,
      },
    });
    await appendTransferEvent(sql, transfer, "transfer.funding_reversed");
    await failTransfer(sql, transfer, `${reversed} before the transfer was executed`);
    return;
  }
  await appendTransferEvent(sql, transfer, "transfer.funding_reversed");
}
