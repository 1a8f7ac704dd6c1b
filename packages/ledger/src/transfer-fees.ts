import { defineOneWayPosting } from "./one-way-postings.ts";

/**
 * A completed transfer's fee, earned: payout_clearing -> fee_revenue. The fee was part of the holds
 * the transfer settled into payout_clearing; the rest of them is what was paid out. Once per transfer.
 */
export const postTransferFee = defineOneWayPosting({
  kind: "transfer_fee",
  from: "payout_clearing",
  to: "fee_revenue",
  referenceKey: "transferId",
  amountKey: "feeUsdMicros",
});
