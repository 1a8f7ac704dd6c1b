import type { Queryable } from "@mp/db";
import { applyFundingCredit, type FundingTarget, lockFundingTarget } from "./apply-funding-credit.ts";
import { findIntentByReference } from "./transfer-store.ts";

/**
 * The transfer a bank credit's reference names, locked (apply-funding-credit.ts: before the credit
 * touches the ledger), or undefined when the reference names none of the merchant's intents.
 */
export async function lockBankFundingTarget(
  sql: Queryable,
  merchantId: string,
  reference: string | null,
): Promise<FundingTarget | undefined> {
  if (!reference) return undefined;
  const named = await findIntentByReference(sql, merchantId, reference);
  return named ? lockFundingTarget(sql, merchantId, named.transfer_id) : undefined;
}

/** A bank credit (posted bank_clearing -> merchant_available) for the intent its reference named. */
export async function applyBankCredit(
  sql: Queryable,
  target: FundingTarget,
  credit: { bankDepositId: string; amountUsdMicros: bigint },
): Promise<void> {
  await applyFundingCredit(sql, target, {
    source: { method: "BANK_TRANSFER", bankDepositId: credit.bankDepositId },
    amount: credit.amountUsdMicros,
    // The intent counts in USD micros, as the ledger does.
    usdMicrosOf: (units) => units,
  });
}
