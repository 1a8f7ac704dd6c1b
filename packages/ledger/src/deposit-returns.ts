import { InsufficientFundsError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { type PostedEntry, postEntry, transferLines } from "./journal-entry.ts";

/**
 * A returned deposit's money reached its payer (the treasury's send of purpose `return` is
 * confirmed): what returns_payable owed for it (the deposit's gross) leaves to payout_clearing, as a
 * payout's money does. Once per deposit (the deposit's id is the reference); the network fee taken
 * from the returned amount left with it, so the whole gross moves.
 *
 * A deposit that a reorganisation deeper than its confirmations removed after its return was queued
 * was owed to no one any more (its reversal gave returns_payable back), yet the send went out: the
 * money sent is then the operator's loss (operator_float), not a second debit of returns_payable.
 * The deposit's row is locked first, as a reorg's roll-back locks it before its reversal, so the two
 * see each other whichever commits first (reversalLines takes the other order).
 */
export async function postDepositReturn(
  client: Queryable,
  input: { depositId: string; merchantId: string; owedUsdMicros: bigint },
): Promise<PostedEntry> {
  const { rows } = await client.query<{ reversed: boolean }>(
    "SELECT reversal_entry_id IS NOT NULL AS reversed FROM deposits WHERE id = $1 FOR UPDATE",
    [input.depositId],
  );
  const owedBy = rows[0]?.reversed ? "operator_float" : "returns_payable";
  return postEntry(client, {
    kind: "deposit_return",
    reference: input.depositId,
    merchantId: input.merchantId,
    lines: transferLines(owedBy, "payout_clearing", input.owedUsdMicros),
  });
}

/**
 * Money that came late for a transfer's intent, of a merchant whose return policy is `return`: the
 * deposit's credit is taken back, its net from merchant_available and its fee from fee_revenue (no
 * fee on money sent back), into returns_payable (its gross), until it is sent back on chain as a
 * refused held deposit is. Once per deposit; refused (insufficient_funds) when the merchant's
 * available balance no longer holds the net (it was spent first): the money then stays credited.
 */
export function postPolicyReturn(
  client: Queryable,
  input: { depositId: string; merchantId: string; netUsdMicros: bigint; feeUsdMicros: bigint },
): Promise<PostedEntry> {
  const gross = input.netUsdMicros + input.feeUsdMicros;
  return postEntry(
    client,
    {
      kind: "policy_return",
      reference: input.depositId,
      merchantId: input.merchantId,
      lines: [
        { account: "merchant_available", side: "debit", amount: input.netUsdMicros },
        { account: "fee_revenue", side: "debit", amount: input.feeUsdMicros },
        { account: "returns_payable", side: "credit", amount: gross },
      ],
    },
    {
      guard(balances) {
        if ((balances.get("merchant_available") ?? 0n) < input.netUsdMicros) throw new InsufficientFundsError();
      },
    },
  );
}
