import { randomUUID } from "node:crypto";
import { ConflictError, decimalToUnits, NotFoundError, USD_DECIMALS, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { appendResourceEvent } from "@mp/events";
import { postBankDeposit } from "@mp/ledger";
import { applyBankCredit, lockBankFundingTarget } from "@mp/transfers";
import type { BankDepositResource } from "./bank-deposit-schemas.ts";
import { insertBankDeposit } from "./bank-deposit-store.ts";

/**
 * Money arrived on a virtual account: records the deposit and credits the merchant's USD balance
 * with one balanced ledger entry (bank_clearing -> merchant_available), in the caller's transaction.
 * The ledger entry is idempotent per deposit id, and the caller's idempotency key makes a replayed
 * request answer the first result instead of crediting again. The merchant's `bank_deposit.created`
 * event (the deposit is credited when created) is appended in the same transaction. A reference
 * naming a transfer's funding intent funds it (fund-from-bank-credit.ts), in the same transaction.
 */
export async function creditBankDeposit(
  sql: Queryable,
  input: {
    merchantId: string;
    virtualAccountId: string;
    amount: string;
    reference: string | null;
    idempotencyKey?: string | undefined;
  },
): Promise<BankDepositResource> {
  const account = await sql.query<{ customer_id: string; status: string }>(
    "SELECT customer_id, status FROM virtual_accounts WHERE merchant_id = $1 AND id = $2 FOR SHARE",
    [input.merchantId, input.virtualAccountId],
  );
  const row = account.rows[0];
  if (!row) throw new NotFoundError("Virtual account");
  // A bank returns money sent to an account that is not open; so does the sandbox.
  if (row.status !== "ACTIVE")
    throw new ConflictError(`Virtual account is ${row.status}; it accepts deposits once ACTIVE`);
  const amountUsdMicros = decimalToUnits(input.amount, USD_DECIMALS);
  if (amountUsdMicros === null || amountUsdMicros <= 0n) {
    throw new ValidationError("amount: must be a positive decimal USD amount", "amount");
  }
  // Locked before the ledger's rows, the order every writer of a transfer keeps (fund-from-bank-credit.ts).
  const target = await lockBankFundingTarget(sql, input.merchantId, input.reference);
  const id = randomUUID();
  const { entryId } = await postBankDeposit(sql, { bankDepositId: id, merchantId: input.merchantId, amountUsdMicros });
  const deposit = await insertBankDeposit(sql, {
    id,
    merchantId: input.merchantId,
    virtualAccountId: input.virtualAccountId,
    customerId: row.customer_id,
    amountUsdMicros,
    reference: input.reference,
    ledgerEntryId: entryId,
  });
  await appendResourceEvent(sql, input.merchantId, "bank_deposit.created", deposit, input.idempotencyKey);
  if (target) await applyBankCredit(sql, target, { bankDepositId: id, amountUsdMicros });
  return deposit;
}
