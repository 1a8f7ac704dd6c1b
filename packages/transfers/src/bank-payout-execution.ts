import { unitsToDecimal } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { postTransferRefund } from "@mp/ledger";
import type { BankPayoutRequest, BankPayoutStatus } from "@mp/providers";
import type { UsBankAccount } from "./resources.ts";
import { finishTransferPayout, fundedTransfersTo, startPayout } from "./transfer-execution.ts";
import { fundingHoldIds } from "./transfer-lifecycle.ts";
import { findTransfer, moveTransfer, type TransferRow } from "./transfer-store.ts";

/**
 * Execution of FUNDED transfers to a US bank account through the banking provider's payouts
 * (migrations/0127). The provider is never called inside a transaction or under a row lock:
 *   1. recordBankPayoutIntent (one transaction): the payout row REQUESTED and the transfer
 *      PROCESSING together, so a BALANCE transfer can no longer be canceled once money may leave;
 *   2. the caller, outside any transaction, sends the payout (keyed by the transfer id, so a repeat
 *      after a crash finds the same payout) or asks its status;
 *   3. recordPayoutAnswer (one transaction, under the transfer's lock) records what the bank said.
 * The transfer is COMPLETED only on the bank's confirmation (holds settled to payout_clearing, fee
 * earned). A refused payout ends FAILED with the holds released to the merchant's available balance
 * (JIT transfers too: the customer's money stays with the merchant, who owes it back or re-sends; it
 * never vanishes). A payout returned after completion ends REFUNDED with one balanced reversing
 * entry (transfer_refund: the paid part and the fee back to available).
 */
export type PayoutRowStatus = "REQUESTED" | "PENDING" | "SENT" | "COMPLETED" | "FAILED" | "RETURNED";

export interface DuePayout {
  transferId: string;
  merchantId: string;
  status: PayoutRowStatus;
  providerPayoutId: string | null;
}

/** How often the provider is asked, and for how long a completed payout may still come back. */
export interface PayoutPacing {
  /** Between status checks of a payout not yet ended; default 0 (every pass). */
  pendingCheckSeconds?: number;
  /** Between return checks of a completed payout; default 3600. */
  returnCheckSeconds?: number;
  /** How long after completion a return is still looked for; default 60 days (the ACH return window). */
  returnWindowSeconds?: number;
}

/** FUNDED transfers to a US bank account, oldest first. */
export function fundedBankTransfers(sql: Queryable, limit: number): Promise<Array<{ id: string; merchantId: string }>> {
  return fundedTransfersTo(sql, "US_BANK_ACCOUNT", limit);
}

/** Step 1: FUNDED -> PROCESSING with its payout REQUESTED. False when the transfer is no longer FUNDED. */
export async function recordBankPayoutIntent(
  sql: Queryable,
  ref: { id: string; merchantId: string },
  provider: string,
): Promise<boolean> {
  // A crypto-funded transfer whose deposit a reorg took back is failed by unfundReversedDeposits;
  // a merchant whose available balance stands below zero waits (PayoutDeferredError).
  return startPayout(sql, ref, "US_BANK_ACCOUNT", async (transfer) => {
    await sql.query(
      `INSERT INTO transfer_payouts (transfer_id, merchant_id, provider, amount, currency, status)
       VALUES ($1, $2, $3, $4, $5, 'REQUESTED')`,
      [transfer.id, transfer.merchant_id, provider, transfer.destination_amount, transfer.destination_asset],
    );
  });
}

/** Payouts the provider should be asked about now: unsent, not ended, or completed within the return window. */
export async function duePayouts(sql: Queryable, limit: number): Promise<DuePayout[]> {
  const result = await sql.query<{
    transfer_id: string;
    merchant_id: string;
    status: PayoutRowStatus;
    provider_payout_id: string | null;
  }>(
    `SELECT transfer_id, merchant_id, status, provider_payout_id FROM transfer_payouts
      WHERE status IN ('REQUESTED', 'PENDING', 'SENT', 'COMPLETED') AND next_check_at <= now()
        AND (status <> 'COMPLETED' OR returnable_until > now())
      ORDER BY next_check_at, transfer_id LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({
    transferId: row.transfer_id,
    merchantId: row.merchant_id,
    status: row.status,
    providerPayoutId: row.provider_payout_id,
  }));
}

/** Step 2's request: the payee's account details opened from the quote (sealed with the quote id). */
export async function bankPayoutRequest(
  sql: Queryable,
  keyring: EncryptionKeyring,
  transferId: string,
): Promise<BankPayoutRequest> {
  const result = await sql.query<{
    quote_id: string;
    ciphertext: Buffer;
    key_id: string;
    amount: string;
    decimals: number;
    requested_at: Date;
    narration: string;
  }>(
    `SELECT q.id AS quote_id, q.destination_bank_ciphertext AS ciphertext, q.destination_bank_key_id AS key_id,
            p.amount::text AS amount, q.destination_decimals AS decimals, p.requested_at, i.narration
       FROM transfer_payouts p JOIN transfers t ON t.id = p.transfer_id JOIN transfer_quotes q ON q.id = t.quote_id
       JOIN funding_intents i ON i.transfer_id = t.id
      WHERE p.transfer_id = $1`,
    [transferId],
  );
  const row = result.rows[0];
  if (!row) throw new Error(`transfer ${transferId} has no bank payout`);
  const account = keyring.openJson({ keyId: row.key_id, ciphertext: row.ciphertext }, row.quote_id) as UsBankAccount;
  return {
    payoutId: transferId,
    amount: unitsToDecimal(BigInt(row.amount), row.decimals, 2),
    currency: "USD",
    requestedAt: row.requested_at,
    creditor: {
      name: account.account_holder_name,
      accountNumber: account.account_number,
      routingNumber: account.routing_number,
      accountType: account.account_type,
    },
    remittance: row.narration,
  };
}

/** Postpones the next question to the provider after a failed call (an outage: retried later). */
export async function postponePayoutCheck(sql: Queryable, transferId: string, seconds: number): Promise<void> {
  await sql.query(
    "UPDATE transfer_payouts SET next_check_at = now() + make_interval(secs => $2), updated_at = now() WHERE transfer_id = $1",
    [transferId, seconds],
  );
}

/** What the transfer's payout settled into payout_clearing (its settled holds) less the fee it earned. */
async function paidAndFee(sql: Queryable, transfer: TransferRow): Promise<{ paid: bigint; fee: bigint }> {
  const result = await sql.query<{ settled: string }>(
    "SELECT coalesce(sum(amount_usd_micros), 0)::text AS settled FROM ledger_holds WHERE id = ANY($1::text[]) AND status = 'SETTLED'",
    [await fundingHoldIds(sql, transfer)],
  );
  // The fee completion posted (finishTransferPayout): the transfer's fee, when there is one.
  const fee = BigInt(transfer.fee_usd_micros);
  return { paid: BigInt(result.rows[0]?.settled ?? "0") - fee, fee };
}

/**
 * Step 3: records the provider's answer, under the transfer's lock (then the payout's). Repeating
 * an answer changes nothing; an answer older than what is recorded (PENDING after COMPLETED) is
 * ignored. Returns the transfer's state when it moved, else undefined.
 */
export async function recordPayoutAnswer(
  sql: Queryable,
  due: Pick<DuePayout, "transferId" | "merchantId">,
  answer: { providerPayoutId: string; status: BankPayoutStatus },
  pacing: PayoutPacing = {},
): Promise<"COMPLETED" | "FAILED" | "REFUNDED" | undefined> {
  const transfer = await findTransfer(sql, due.merchantId, due.transferId, "FOR UPDATE");
  const locked = await sql.query<{ status: PayoutRowStatus }>(
    "SELECT status FROM transfer_payouts WHERE transfer_id = $1 FOR UPDATE",
    [due.transferId],
  );
  const payout = locked.rows[0];
  if (!transfer || !payout) return undefined;
  const { status } = answer.status;
  const reason = "reason" in answer.status ? answer.status.reason : null;
  const set = async (columns: string, values: unknown[] = []) => {
    await sql.query(
      `UPDATE transfer_payouts SET provider_payout_id = $2, ${columns}, updated_at = now() WHERE transfer_id = $1`,
      [due.transferId, answer.providerPayoutId, ...values],
    );
  };
  const ended = payout.status === "FAILED" || payout.status === "RETURNED";
  if (ended || (payout.status === "COMPLETED" && status !== "RETURNED")) {
    await set("next_check_at = now() + make_interval(secs => $3)", [pacing.returnCheckSeconds ?? 3600]);
    return undefined;
  }
  if (status === "PENDING" || status === "SENT") {
    await set("status = $3, next_check_at = now() + make_interval(secs => $4)", [
      status,
      pacing.pendingCheckSeconds ?? 0,
    ]);
    return undefined;
  }
  if (status === "FAILED") {
    if (transfer.status !== "PROCESSING") return undefined;
    await finishTransferPayout(sql, {
      id: transfer.id,
      merchantId: transfer.merchant_id,
      sendState: "failed",
      reason: `the bank refused the payout: ${reason ?? "no reason given"}`,
    });
    await set("status = 'FAILED', reason = $3, ended_at = now()", [reason]);
    return "FAILED";
  }
  // COMPLETED, or RETURNED (completed first if the confirmation was never seen).
  let current = transfer;
  if (transfer.status === "PROCESSING") {
    current =
      (await finishTransferPayout(sql, {
        id: transfer.id,
        merchantId: transfer.merchant_id,
        sendState: "confirmed",
      })) ?? transfer;
    await set(
      `status = 'COMPLETED', completed_at = now(), returnable_until = now() + make_interval(secs => $3),
       next_check_at = now() + make_interval(secs => $4)`,
      [pacing.returnWindowSeconds ?? 60 * 86_400, pacing.returnCheckSeconds ?? 3600],
    );
  }
  if (status === "COMPLETED") return current.status === "COMPLETED" ? "COMPLETED" : undefined;
  if (current.status !== "COMPLETED") return undefined;
  const { paid, fee } = await paidAndFee(sql, transfer);
  const { entryId } = await postTransferRefund(sql, {
    transferId: transfer.id,
    merchantId: transfer.merchant_id,
    paidUsdMicros: paid,
    feeUsdMicros: fee,
  });
  await set("status = 'RETURNED', reason = $3, ended_at = now(), refund_entry_id = $4, refunded_usd_micros = $5", [
    reason,
    entryId,
    (paid + fee).toString(),
  ]);
  // The merchant reads why on the transfer (the bank's reason, e.g. an ACH code R03 from the statement).
  const why = `the payee's bank returned the payout after it completed: ${reason ?? "no reason given"}`.slice(0, 500);
  await sql.query("UPDATE transfers SET failure_reason = $2 WHERE id = $1", [transfer.id, why]);
  await moveTransfer(sql, { ...current, failure_reason: why }, "REFUNDED", "transfer.refunded");
  return "REFUNDED";
}
