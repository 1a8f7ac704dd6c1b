import { ConflictError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import { idSchema, microsSchema, parseInput } from "./inputs.ts";
import { findEntry, type LineSpec, oppositeSide, postEntry } from "./journal-entry.ts";

export const creditInput = z
  .object({ depositId: idSchema, merchantId: idSchema, amountUsdMicros: microsSchema, feeUsdMicros: microsSchema })
  .refine((i) => i.feeUsdMicros <= i.amountUsdMicros, {
    message: "fee cannot exceed the amount",
    path: ["feeUsdMicros"],
  });

const reversalInput = z.object({ depositId: idSchema, merchantId: idSchema });

/**
 * A confirmed crypto deposit: debit deposit_clearing (gross), credit merchant_available (net =
 * gross - fee) and fee_revenue (fee). Always three lines, a zero fee included, so every credit has
 * the same shape and its reversal mirrors it exactly. Idempotent per deposit: a repeat returns the
 * first entry and posts nothing.
 */
export async function postDepositCredit(
  client: Queryable,
  input: { depositId: string; merchantId: string; amountUsdMicros: bigint; feeUsdMicros: bigint },
): Promise<{ entryId: string }> {
  const { depositId, merchantId, amountUsdMicros, feeUsdMicros } = parseInput(creditInput, input);
  const { entryId } = await postEntry(client, {
    kind: "deposit_credit",
    reference: depositId,
    merchantId,
    lines: depositCreditLines({ amountUsdMicros, feeUsdMicros }),
  });
  return { entryId };
}

/** The three lines of a deposit credit (postDepositCredit and postDepositCredits post the same). */
export function depositCreditLines(input: { amountUsdMicros: bigint; feeUsdMicros: bigint }): LineSpec[] {
  return [
    { account: "deposit_clearing", side: "debit", amount: input.amountUsdMicros },
    { account: "merchant_available", side: "credit", amount: input.amountUsdMicros - input.feeUsdMicros },
    { account: "fee_revenue", side: "credit", amount: input.feeUsdMicros },
  ];
}

/**
 * A deposit whose block left the canonical chain: posts the exact opposite lines of its credit
 * entry. Returns null when the deposit was never credited; a repeat returns the first reversal.
 *
 * Never refused for lack of funds: the money has already left the chain, so the merchant's available
 * balance may go below zero (the merchant owes it back; new credits fill the gap first).
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
    lines: credit.lines.map((line) => ({ ...line, side: oppositeSide(line.side) })),
  });
  return { entryId };
}
