import { InsufficientFundsError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { type PostedEntry, postEntry, transferLines } from "./journal-entry.ts";
import { postSystemEntry } from "./system-entry.ts";

/**
 * Bank money sent back by bank (migrations/0270, docs/returns.md): a bank credit the merchant's
 * `return` policy takes back leaves merchant_available for returns_payable (`bank_policy_return`,
 * referenced by the bank return's id; refused with insufficient_funds when the merchant spent it
 * first: the money then stays credited), and leaves returns_payable for bank_clearing when the bank
 * paid it (`bank_return_paid`: the money left the bank), or back to merchant_available when an
 * operator closed the return unpaid (`bank_return_closed`). Each once per bank return.
 */
export function postBankPolicyReturn(
  client: Queryable,
  input: { returnId: string; merchantId: string; owedUsdMicros: bigint },
): Promise<PostedEntry> {
  return postEntry(
    client,
    {
      kind: "bank_policy_return",
      reference: input.returnId,
      merchantId: input.merchantId,
      lines: transferLines("merchant_available", "returns_payable", input.owedUsdMicros),
    },
    {
      guard(balances) {
        if ((balances.get("merchant_available") ?? 0n) < input.owedUsdMicros) throw new InsufficientFundsError();
      },
    },
  );
}

/** A policy bank return the bank paid: returns_payable -> bank_clearing, once per return. */
export async function postBankReturnPaid(
  client: Queryable,
  input: { returnId: string; owedUsdMicros: bigint },
): Promise<{ entryId: string }> {
  const { entryId } = await postSystemEntry(
    client,
    "bank_return_paid",
    input.returnId,
    transferLines("returns_payable", "bank_clearing", input.owedUsdMicros),
  );
  return { entryId };
}

/**
 * A policy bank return an operator closed unpaid (`payments bank return-close`): what it took back is
 * the merchant's again, returns_payable -> merchant_available, once per return.
 */
export function postBankReturnClosed(
  client: Queryable,
  input: { returnId: string; merchantId: string; owedUsdMicros: bigint },
): Promise<PostedEntry> {
  return postEntry(client, {
    kind: "bank_return_closed",
    reference: input.returnId,
    merchantId: input.merchantId,
    lines: transferLines("returns_payable", "merchant_available", input.owedUsdMicros),
  });
}
