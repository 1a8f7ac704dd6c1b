import { type ChainId, formatUsd } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { getMerchantBalance, postTransferFee, releaseHold, settleHold } from "@mp/ledger";
import { fundingHoldIds, releaseFunding } from "./transfer-lifecycle.ts";
import { DUE_FOR_TRY, selectTransferRefs, type TransferRef } from "./transfer-retries.ts";
import { failTransfer, findTransfer, moveTransfer, type TransferRow } from "./transfer-store.ts";
import type { EndedSend, TransferTreasury } from "./transfer-treasury.ts";

/** FUNDED transfers to a destination of `kind`, oldest first. */
export async function fundedTransfersTo(
  sql: Queryable,
  kind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT",
  limit: number,
): Promise<TransferRef[]> {
  return selectTransferRefs(
    sql,
    `SELECT t.id, t.merchant_id FROM transfers t JOIN transfer_quotes q ON q.id = t.quote_id
      WHERE t.status = 'FUNDED' AND q.destination_kind = $1 AND ${DUE_FOR_TRY} ORDER BY t.created_at, t.id LIMIT $2`,
    [kind, limit],
  );
}

/** The payouts to start: FUNDED transfers to a crypto address, oldest first. */
export function fundedCryptoTransfers(
  sql: Queryable,
  limit: number,
): Promise<Array<{ id: string; merchantId: string }>> {
  return fundedTransfersTo(sql, "CRYPTO_ADDRESS", limit);
}

/**
 * FUNDED -> PROCESSING, with the treasury's send requested in the same transaction under the
 * transfer's lock: the send row and the state commit together, and the send's idempotency key (the
 * transfer id) makes a repeat after a crash find the same send. The holds stay until the send is
 * confirmed or failed. False when the transfer is no longer FUNDED.
 */
export async function startTransferPayout(
  sql: Queryable,
  ref: { id: string; merchantId: string },
  treasury: TransferTreasury,
): Promise<boolean> {
  return startPayout(sql, ref, "CRYPTO_ADDRESS", async (transfer) => {
    await treasury.requestSend(
      sql,
      {
        chain: transfer.destination_network as ChainId,
        asset: transfer.destination_asset,
        // Never null for a CRYPTO_ADDRESS quote (migration 0120's CHECK).
        to: transfer.destination_address as string,
        amountRaw: BigInt(transfer.destination_amount),
      },
      transfer.id,
    );
  });
}

/**
 * The start of every payout, crypto or bank: under the transfer's lock, a FUNDED transfer to a
 * destination of `kind` whose payout may start (payoutMayStart) has it recorded by `request`, then
 * moves to PROCESSING, in one transaction. False, and nothing written, otherwise.
 */
export async function startPayout(
  sql: Queryable,
  ref: { id: string; merchantId: string },
  kind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT",
  request: (transfer: TransferRow) => Promise<void>,
): Promise<boolean> {
  const transfer = await findTransfer(sql, ref.merchantId, ref.id, "FOR UPDATE");
  if (transfer?.status !== "FUNDED" || transfer.destination_kind !== kind) return false;
  if (!(await payoutMayStart(sql, transfer))) return false;
  await request(transfer);
  await moveTransfer(sql, transfer, "PROCESSING", "transfer.processing");
  return true;
}

/** A payout that may not start yet (the transfer executor retries it with backoff, then gives up). */
export class PayoutDeferredError extends Error {
  override readonly name = "PayoutDeferredError";
}

/**
 * Whether the transfer's payout may start now (the caller holds its lock): false when a deposit its
 * funding stands on left the chain (unfundReversedDeposits fails it); throws PayoutDeferredError
 * while the merchant's available balance stands below zero (a reorg took back a deposit it had
 * credited): the money the holds reserve may be what the reversal took, so nothing is paid out until
 * new credits bring available back (or the executor gives up: FAILED, the holds released into the gap).
 */
export async function payoutMayStart(sql: Queryable, transfer: TransferRow): Promise<boolean> {
  if (await fundingReversed(sql, transfer.id)) return false;
  const { available } = await getMerchantBalance(sql, transfer.merchant_id);
  if (available < 0n) {
    throw new PayoutDeferredError(
      `the merchant's available balance is ${formatUsd(available)} USD (below zero after a reversed deposit): the payout waits for it to be back at zero or above`,
    );
  }
  return true;
}

/**
 * Whether a chain deposit the transfer's funding stands on has left the chain (unfundReversedDeposits
 * then fails the transfer: it is never paid out with money that is gone). The deposits are locked
 * FOR SHARE until the payout's transaction commits, so a reorg's rollback comes before (and is seen
 * here) or after the payout started: never in between.
 */
export async function fundingReversed(sql: Queryable, transferId: string): Promise<boolean> {
  const result = await sql.query<{ status: string }>(
    `SELECT d.status FROM funding_intent_credits c JOIN funding_intents i ON i.id = c.intent_id
       JOIN deposits d ON d.id = c.deposit_id
      WHERE i.transfer_id = $1 AND c.applied_amount > 0 AND c.reversed_at IS NULL ORDER BY d.id FOR SHARE OF d`,
    [transferId],
  );
  return result.rows.some((row) => row.status === "REVERSED");
}

/** PROCESSING transfers read per page while looking for ended sends. */
const PROCESSING_PAGE = 500;

/** A page of PROCESSING transfers due for a try, oldest first, after `after` (keyset). */
async function processingTransfers(
  sql: Queryable,
  after: { createdAt: Date; id: string } | undefined,
): Promise<Array<{ id: string; merchant_id: string; created_at: Date }>> {
  const result = await sql.query<{ id: string; merchant_id: string; created_at: Date }>(
    `SELECT t.id, t.merchant_id, t.created_at FROM transfers t
      WHERE t.status = 'PROCESSING' AND ${DUE_FOR_TRY} AND ($1::timestamptz IS NULL OR (t.created_at, t.id) > ($1, $2::uuid))
      ORDER BY t.created_at, t.id LIMIT $3`,
    [after?.createdAt ?? null, after?.id ?? null, PROCESSING_PAGE],
  );
  return result.rows;
}

/**
 * PROCESSING transfers whose treasury send has ended (confirmed or failed), oldest first, at most
 * `limit`: the treasury answers for the sends of each page of PROCESSING transfers, so sends still
 * under way (waiting for funds, unconfirmed) never hold up those behind them.
 */
export async function endedTransferPayouts(
  sql: Queryable,
  treasury: TransferTreasury,
  limit: number,
): Promise<Array<{ id: string; merchantId: string; sendState: EndedSend["state"]; reason: string | null }>> {
  const ended: Array<{ id: string; merchantId: string; sendState: EndedSend["state"]; reason: string | null }> = [];
  let after: { createdAt: Date; id: string } | undefined;
  while (ended.length < limit) {
    const page = await processingTransfers(sql, after);
    const sends = await treasury.endedSends(
      sql,
      page.map((row) => row.id),
    );
    for (const row of page) {
      const send = sends.get(row.id);
      if (send && ended.length < limit) {
        ended.push({ id: row.id, merchantId: row.merchant_id, sendState: send.state, reason: send.reason });
      }
    }
    const last = page.at(-1);
    if (!last || page.length < PROCESSING_PAGE) break;
    after = { createdAt: last.created_at, id: last.id };
  }
  return ended;
}

/**
 * The send ended: confirmed -> the holds settle (reserved -> payout_clearing, whatever the merchant's
 * available balance stands at: the money has left), the fee is earned (payout_clearing ->
 * fee_revenue), COMPLETED; failed -> the holds are released to the merchant's available balance
 * (money never vanishes), FAILED with the send's (or the bank's) reason. One transaction under the
 * transfer's lock.
 */
export async function finishTransferPayout(
  sql: Queryable,
  ref: { id: string; merchantId: string; sendState: "confirmed" | "failed"; reason?: string | null | undefined },
): Promise<TransferRow | undefined> {
  const transfer = await findTransfer(sql, ref.merchantId, ref.id, "FOR UPDATE");
  if (transfer?.status !== "PROCESSING") return undefined;
  const holds = await fundingHoldIds(sql, transfer);
  if (ref.sendState === "failed") {
    for (const holdId of holds) await releaseHold(sql, { holdId, merchantId: transfer.merchant_id });
    return failTransfer(sql, transfer, ref.reason ?? "the payout failed");
  }
  for (const holdId of holds) await settleHold(sql, { holdId, merchantId: transfer.merchant_id, paidOut: true });
  const fee = BigInt(transfer.fee_usd_micros);
  if (fee > 0n) {
    await postTransferFee(sql, { transferId: transfer.id, merchantId: transfer.merchant_id, feeUsdMicros: fee });
  }
  return moveTransfer(sql, transfer, "COMPLETED", "transfer.completed");
}

/**
 * Gives up starting a FUNDED transfer's payout (transfer-retries.ts: past the bound, or refused for
 * good): FAILED with `reason`, its holds released to the merchant's available balance (a BALANCE
 * transfer's money back; a customer's payment stays with the merchant, as for a refused bank
 * payout), event transfer.failed. Nothing was sent: a start is one transaction with its send request
 * (or payout row), and this one finds the transfer still FUNDED under its lock.
 */
export async function giveUpStart(db: Database, ref: TransferRef, reason: string): Promise<boolean> {
  return db.tx(async (sql) => {
    const transfer = await findTransfer(sql, ref.merchantId, ref.id, "FOR UPDATE");
    if (transfer?.status !== "FUNDED") return false;
    await releaseFunding(sql, transfer);
    await failTransfer(sql, transfer, reason);
    return true;
  });
}
