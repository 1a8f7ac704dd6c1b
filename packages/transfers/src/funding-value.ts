import { formatUsd } from "@mp/core";
import type { Queryable } from "@mp/db";
import { describeAmount, type IntentRow } from "./transfer-store.ts";

/**
 * What a customer's crypto payments are worth against what the quote needs (issue 27, finding 8).
 * The service never pays out more USD value than it received, judged when the money arrives: each
 * confirmed deposit is valued at the USD rate of its confirmation (the indexer's deposit_credit), and
 * the holds a transfer stands on must reach the quote's source value (source_usd_micros: what the
 * quote priced the payer's money at, its fee included, from which the payout was priced). Worth
 * less, the intent is short like an underpayment: it stays PENDING, flagged AMOUNT_MISMATCH with the
 * USD still due, until a top-up covers it or the transfer expires. A bank payment is USD: its units
 * are its value.
 *
 * Rounding: a payment's hold is its pro-rata share of the deposit's valuation, rounded down, so each
 * applied payment may count up to one micro-dollar less than it is worth; that much is not a shortfall.
 */
export interface FundingValue {
  /** USD micros the applied payments hold (not reversed), and how many they are. */
  held: bigint;
  payments: number;
  /** The units they applied (may exceed the required amount when the value was short). */
  applied: bigint;
}

export async function fundingValue(sql: Queryable, intentId: string): Promise<FundingValue> {
  const result = await sql.query<{ held: string; payments: number; applied: string }>(
    `SELECT coalesce(sum(h.amount_usd_micros) FILTER (WHERE h.status = 'HELD'), 0)::text AS held,
            count(*)::int AS payments, coalesce(sum(c.applied_amount), 0)::text AS applied
       FROM funding_intent_credits c LEFT JOIN ledger_holds h ON h.id = c.hold_id
      WHERE c.intent_id = $1 AND c.applied_amount > 0 AND c.reversed_at IS NULL`,
    [intentId],
  );
  const row = result.rows[0];
  return { held: BigInt(row?.held ?? "0"), payments: row?.payments ?? 0, applied: BigInt(row?.applied ?? "0") };
}

/**
 * USD micros still due for `needed` after `value`: zero once covered (up to the rounding note's one
 * micro-dollar per payment), else all of what is missing.
 */
export function valueDue(needed: bigint, value: Pick<FundingValue, "held" | "payments">): bigint {
  const due = needed - value.held;
  return due > BigInt(value.payments) ? due : 0n;
}

/** The flag of an intent whose payments add up in units but are worth `due` USD micros too little. */
export function valueShortFlag(
  intent: IntentRow,
  value: FundingValue,
  needed: bigint,
  due: bigint,
): { code: "AMOUNT_MISMATCH"; message: string } {
  return {
    code: "AMOUNT_MISMATCH",
    message: `Received ${describeAmount(intent, value.applied)} worth ${formatUsd(value.held)} USD at the rates of their confirmations; the transfer needs ${formatUsd(needed)} USD: ${formatUsd(due)} USD still due`,
  };
}
