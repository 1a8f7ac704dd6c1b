import { ConflictError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import { releaseUnappliedFunding } from "./funding-deposits.ts";
import { idSchema, parseInput } from "./inputs.ts";
import { findEntry, type LineSpec, oppositeSide, postEntry } from "./journal-entry.ts";

const reversalInput = z.object({ depositId: idSchema, merchantId: idSchema });

/**
 * The credit as it stands once a funding deposit's fee refund (funding-deposits.ts) is folded in:
 * the merchant got the refund on top of the net, fee_revenue kept the fee less the refund.
 */
async function creditWithRefund(
  client: Queryable,
  depositId: string,
  credit: readonly LineSpec[],
): Promise<LineSpec[]> {
  const refund = await findEntry(client, "funding_fee_refund", depositId);
  const refunded = refund?.lines.find((line) => line.account === "merchant_available")?.amount ?? 0n;
  if (refunded === 0n) return [...credit];
  return credit.map((line) => {
    if (line.account === "merchant_available") return { ...line, amount: line.amount + refunded };
    if (line.account === "fee_revenue") return { ...line, amount: line.amount - refunded };
    return line;
  });
}

/**
 * The opposite of what a set of entries' lines moved, account by account (debits and credits of an
 * account netted; accounts left unmoved omitted), in the order the accounts first appear.
 */
function undoLines(lines: readonly LineSpec[]): LineSpec[] {
  const moved = new Map<LineSpec["account"], bigint>();
  for (const line of lines) {
    const signed = line.side === "debit" ? line.amount : -line.amount;
    moved.set(line.account, (moved.get(line.account) ?? 0n) + signed);
  }
  return [...moved]
    .filter(([, amount]) => amount !== 0n)
    .map(([account, amount]) => ({
      account,
      side: amount > 0n ? "credit" : "debit",
      amount: amount > 0n ? amount : -amount,
    }));
}

/**
 * The lines that undo a deposit's credit where its money is now. Unresolved or never held: the exact
 * opposite of the credit (with a funding deposit's fee refund folded in). Released: the same, taken
 * from available instead of held. Returned while held (held_return): the payer is no longer owed
 * anything (the money left the chain), so returns_payable gives back the gross to deposit_clearing.
 * Taken back by the merchant's return policy (policy_return: late money, or an over-payment's
 * excess): the opposite of the credit and of the policy's entry together (returns_payable gives back
 * what it owes, available what the intent took of it).
 */
async function reversalLines(client: Queryable, depositId: string, credited: readonly LineSpec[]): Promise<LineSpec[]> {
  const lines = await owedReversalLines(client, depositId, credited);
  // Already sent back to its payer (deposit_return posted): returns_payable owes nothing for it any
  // more, and the money sent for a payment the chain no longer has is the operator's loss.
  if (!(await findEntry(client, "deposit_return", depositId))) return lines;
  return lines.map((line) => (line.account === "returns_payable" ? { ...line, account: "operator_float" } : line));
}

async function owedReversalLines(
  client: Queryable,
  depositId: string,
  credited: readonly LineSpec[],
): Promise<LineSpec[]> {
  const credit = await creditWithRefund(client, depositId, credited);
  const policy = await findEntry(client, "policy_return", depositId);
  if (policy) return undoLines([...credit, ...policy.lines]);
  // Refused while held: owed back whole.
  const returned = await findEntry(client, "held_return", depositId);
  if (returned) {
    const gross = credit.find((line) => line.account === "deposit_clearing")?.amount ?? 0n;
    return [
      { account: "deposit_clearing", side: "credit", amount: gross },
      { account: "returns_payable", side: "debit", amount: gross },
    ];
  }
  const released = await findEntry(client, "held_release", depositId);
  return credit.map((line) => ({
    account: released && line.account === "merchant_held" ? "merchant_available" : line.account,
    side: oppositeSide(line.side),
    amount: line.amount,
  }));
}

/**
 * A deposit whose block left the canonical chain: posts the opposite of its credit, where the money
 * now is (reversalLines). A funding deposit still awaiting application has its unapplied-funding hold
 * released after the reversal (reserved -> available, filling what the reversal took; in that order so
 * the balance rows are locked in the ledger's global order, system accounts first). Returns null when
 * the deposit was never credited; a repeat returns the first reversal.
 *
 * Never refused for lack of funds: the money has already left the chain, so the merchant's available
 * balance may go below zero (the merchant owes it back; new credits fill the gap first). While it is,
 * no payout hold of the merchant can settle (holds.ts).
 */
export async function postDepositReversal(
  client: Queryable,
  input: { depositId: string; merchantId: string },
): Promise<{ entryId: string } | null> {
  const { depositId, merchantId } = parseInput(reversalInput, input);
  const credit = await findEntry(client, "deposit_credit", depositId);
  if (!credit) return null;
  if (credit.merchantId !== merchantId) {
    throw new ConflictError(`deposit ${depositId} was credited to another merchant`);
  }
  const { entryId } = await postEntry(client, {
    kind: "deposit_reversal",
    reference: depositId,
    merchantId,
    lines: await reversalLines(client, depositId, credit.lines),
  });
  await releaseUnappliedFunding(client, { depositId, merchantId });
  return { entryId };
}
