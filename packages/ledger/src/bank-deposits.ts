import { defineOneWayPosting } from "./one-way-postings.ts";

/** Fiat received on a virtual account: bank_clearing -> merchant_available. Idempotent per bank deposit. */
export const postBankDeposit = defineOneWayPosting({
  kind: "bank_deposit",
  from: "bank_clearing",
  to: "merchant_available",
  referenceKey: "bankDepositId",
  amountKey: "amountUsdMicros",
});
