import type { Queryable } from "@mp/db";
import { placeHold } from "@mp/ledger";
import { expireIfDue } from "./transfer-lifecycle.ts";
import {
  appendTransferEvent,
  describeAmount,
  findIntentByReference,
  findIntentOfTransfer,
  findTransfer,
  type IntentRow,
  moveTransfer,
  type TransferRow,
  updateIntent,
} from "./transfer-store.ts";

/** The transfer and intent a bank credit's reference names, both locked for the credit's transaction. */
export interface FundingTarget {
  transfer: TransferRow;
  intent: IntentRow;
}

/**
 * Finds and locks the transfer a credit's reference names (transfer row, then intent: the order of
 * every writer of transfers), before the credit touches the ledger: the ledger's balance rows are
 * locked after, as cancel and expiry lock them after the transfer, so no two of them wait on each
 * other in a cycle. An unfunded transfer past its expiry is expired here first: money arriving late
 * never funds it at the stale rate.
 */
export async function lockFundingTarget(
  sql: Queryable,
  merchantId: string,
  reference: string | null,
): Promise<FundingTarget | undefined> {
  if (!reference) return undefined;
  const named = await findIntentByReference(sql, merchantId, reference);
  if (!named) return undefined;
  const transfer = await findTransfer(sql, merchantId, named.transfer_id, "FOR UPDATE");
  const intent = await findIntentOfTransfer(sql, named.transfer_id, "FOR UPDATE");
  if (!transfer || !intent) return undefined;
  const current = await expireIfDue(sql, transfer, intent);
  if (current === transfer) return { transfer, intent };
  const after = await findIntentOfTransfer(sql, transfer.id);
  return after ? { transfer: current, intent: after } : undefined;
}

/**
 * A bank credit (already posted to the merchant's available balance, bank_clearing ->
 * merchant_available) named `target`'s reference:
 * - intent PENDING: the part still due is reserved for the transfer (a ledger hold per credit);
 *   credits add up; short, the intent stays PENDING flagged AMOUNT_MISMATCH with the amounts received
 *   and still due; enough, the intent and the transfer are FUNDED; any excess stays available.
 * - intent FUNDED, EXPIRED or CANCELED (or not a bank intent): the whole credit stays in the
 *   merchant's available balance, the intent flagged LATE_PAYMENT, with a transfer.late_funding event.
 * Every outcome is recorded per credit in funding_intent_credits.
 */
export async function applyBankCredit(
  sql: Queryable,
  target: FundingTarget,
  credit: { bankDepositId: string; amountUsdMicros: bigint },
): Promise<void> {
  const { transfer, intent } = target;
  const amount = credit.amountUsdMicros;
  if (intent.status !== "PENDING" || intent.method !== "BANK_TRANSFER") {
    await recordCredit(sql, intent.id, credit.bankDepositId, { amount, applied: 0n, holdId: null });
    await updateIntent(sql, intent.id, {
      status: intent.status,
      receivedAmount: BigInt(intent.received_amount),
      flag: {
        code: "LATE_PAYMENT",
        message: `A payment of ${describeAmount(intent, amount)} arrived after the intent was ${intent.status}; it was added to the merchant's available balance`,
      },
    });
    await appendTransferEvent(sql, transfer, "transfer.late_funding");
    return;
  }
  const required = BigInt(intent.required_amount);
  const before = BigInt(intent.received_amount);
  const applied = amount < required - before ? amount : required - before;
  const excess = amount - applied;
  const holdId = `transfer-funding:${credit.bankDepositId}`;
  await placeHold(sql, { holdId, merchantId: transfer.merchant_id, amountUsdMicros: applied });
  await recordCredit(sql, intent.id, credit.bankDepositId, { amount, applied, holdId });
  const received = before + applied;
  if (received < required) {
    await updateIntent(sql, intent.id, {
      status: "PENDING",
      receivedAmount: received,
      flag: {
        code: "AMOUNT_MISMATCH",
        message: `Received ${describeAmount(intent, received)} of ${describeAmount(intent, required)}; ${describeAmount(intent, required - received)} still due`,
      },
    });
    await appendTransferEvent(sql, transfer, "transfer.funding_received");
    return;
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
}

async function recordCredit(
  sql: Queryable,
  intentId: string,
  bankDepositId: string,
  credit: { amount: bigint; applied: bigint; holdId: string | null },
): Promise<void> {
  await sql.query(
    `INSERT INTO funding_intent_credits (bank_deposit_id, intent_id, outcome, amount, applied_amount, excess_amount, hold_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      bankDepositId,
      intentId,
      credit.applied > 0n ? "APPLIED" : "LATE",
      credit.amount.toString(),
      credit.applied.toString(),
      (credit.amount - credit.applied).toString(),
      credit.holdId,
    ],
  );
}
