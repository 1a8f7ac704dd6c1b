/**
 * The words a bank policy return writes where the merchant reads it (take-back-bank-credits.ts) and
 * that closing the return replaces (bank-return-actions.ts): one text, so the close always finds
 * what the take-back wrote.
 */

/** Appended to a failed transfer's failure_reason when the customer's bank credits go back. */
export const BANK_PAYMENT_SENT_BACK_NOTE =
  "; the customer's bank payment was sent back to its payer by the merchant's return policy";

/** Replaces "added to the merchant's available balance" in a late or excess credit's intent flag. */
export function bankSentBackFlag(bankDepositId: string): string {
  return `sent back to its payer by bank by the merchant's return policy (bank deposit ${bankDepositId})`;
}
