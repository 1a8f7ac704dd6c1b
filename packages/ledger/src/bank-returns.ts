import { InsufficientFundsError } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { AccountKind } from "./accounts.ts";
import { type PostedEntry, postEntry, transferLines } from "./journal-entry.ts";
import { postSystemEntry } from "./system-entry.ts";

/**
 * Bank money sent back by bank (migrations/0270, docs/returns.md): a bank credit the merchant's
 * `return` policy takes back leaves merchant_available for returns_payable (`bank_policy_return`,
 * referenced by the bank return's id; refused with insufficient_funds when the merchant spent it
 * first: the money then stays credited), and leaves returns_payable for bank_clearing when the bank
 * paid it (`bank_return_paid`: the money left the bank), or back to merchant_available when an
 * operator closed the return unpaid (`bank_return_closed`). Each once per bank return (paid, and
 * back in returns_payable when the payer's bank sent the payment back, `bank_return_bounced`: once
 * per payout key).
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

/** A system posting of a bank return's payout, from one account to another, once per payout key. */
function payoutPosting(kind: "bank_return_paid" | "bank_return_bounced", from: AccountKind, to: AccountKind) {
  return async (client: Queryable, input: { payoutKey: string; owedUsdMicros: bigint }) => {
    const { entryId } = await postSystemEntry(
      client,
      kind,
      input.payoutKey,
      transferLines(from, to, input.owedUsdMicros),
    );
    return { entryId };
  };
}

/**
 * A policy bank return the bank paid: returns_payable -> bank_clearing, once per payout key (the
 * return's first key is its id; one sent again after its payer's bank sent it back has a new one).
 */
export const postBankReturnPaid = payoutPosting("bank_return_paid", "returns_payable", "bank_clearing");

/**
 * A paid policy bank return that the payer's bank sent back: the money is at the bank again and
 * still owed, bank_clearing -> returns_payable (the opposite of its `bank_return_paid`), once per
 * payout key.
 */
export const postBankReturnBounced = payoutPosting("bank_return_bounced", "bank_clearing", "returns_payable");

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
