import { expect } from "vitest";
import type { TestMerchant } from "../support/api-harness.ts";
import type { TransfersApi } from "./transfers-support.ts";

/** A US bank account as a quote's destination; its number's last digits are the sandbox's magic. */
export function usBank(accountNumber: string) {
  return {
    type: "US_BANK_ACCOUNT",
    account_holder_name: "Pat Payee",
    routing_number: "021000021",
    account_number: accountNumber,
    account_type: "CHECKING",
  };
}

/** A BALANCE transfer of 100.00 USD (fee 1.00) to `accountNumber`: FUNDED at once. */
export async function balanceToBank(t: TransfersApi, a: TestMerchant, customerId: string, accountNumber: string) {
  const quote = await t.quote(a, customerId, { source: { method: "BALANCE" }, destination: usBank(accountNumber) });
  const res = await t.transfer(a, quote.id);
  expect(res.status, res.text).toBe(201);
  expect(res.body.data.status).toBe("FUNDED");
  return res.body.data as { id: string; destination_amount: { value: string } };
}
