import type { Queryable } from "@mp/db";
import { lockBalances, merchantAccounts } from "./accounts.ts";
import { releaseHold } from "./holds.ts";
import { defineOneWayPosting } from "./one-way-postings.ts";

/**
 * Deposits to a transfer's funding address, of the intent's asset (issue 27, finding 3: fees follow
 * the money's purpose). The indexer credits one like any deposit, the merchant's deposit fee
 * included, and reserves its net at once with this hold (postDepositCredits, `awaitsApplication`):
 * until the transfer executor has said what the money is, none of it is the merchant's to spend, so
 * no payout of the merchant and no order of the two steps can take available below zero. The
 * executor then releases the hold, holds what an open intent takes for the transfer and gives that
 * part's fee back (postFundingFeeRefund); late money, an excess or a payment after a cancel stays
 * available having paid the fee, as any deposit does.
 */
export function unappliedFundingHoldId(depositId: string): string {
  return `funding-deposit:${depositId}`;
}

/**
 * Locks, in the ledger's global order (fee_revenue, a system account, first), the balance rows an
 * application of a funding deposit posts to: its fee refund (fee_revenue -> available) comes after
 * the release of the reservation and the transfer's hold (available, reserved), so without this the
 * system row would be taken after the merchant's and could wait in a cycle with a concurrent credit.
 * Call it before the transaction's first posting.
 */
export async function lockFundingAccounts(client: Queryable, merchantId: string): Promise<void> {
  const accounts = await merchantAccounts(client, merchantId);
  await lockBalances(client, [accounts.fee_revenue, accounts.merchant_available, accounts.merchant_reserved]);
}

/**
 * The executor has decided what the deposit is: its unapplied-funding hold is released (reserved ->
 * available), once; false when it has none (a zero net, or a deposit credited before this hold
 * existed) or it was released already. The caller holds the deposit's row lock.
 */
export async function releaseUnappliedFunding(
  client: Queryable,
  input: { depositId: string; merchantId: string },
): Promise<boolean> {
  const holdId = unappliedFundingHoldId(input.depositId);
  const hold = await client.query<{ status: string }>(
    "SELECT status FROM ledger_holds WHERE id = $1 AND merchant_id = $2",
    [holdId, input.merchantId],
  );
  if (hold.rows[0]?.status !== "HELD") return false;
  await releaseHold(client, { holdId, merchantId: input.merchantId });
  return true;
}

/**
 * The deposit fee of the part of a funding deposit an open intent took, given back: fee_revenue ->
 * merchant_available, once per deposit (its id is the reference). The transfer charges its own fee.
 */
export const postFundingFeeRefund = defineOneWayPosting({
  kind: "funding_fee_refund",
  from: "fee_revenue",
  to: "merchant_available",
  referenceKey: "depositId",
  amountKey: "refundUsdMicros",
});
