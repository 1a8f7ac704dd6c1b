import { ConflictError, formatUsd } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import { idSchema, microsSchema, parseInput } from "./inputs.ts";
import { findEntry, oppositeSide, transferLines } from "./journal-entry.ts";
import { postSystemEntry, postSystemReversal } from "./system-entry.ts";

/**
 * Bank suspense (migrations/0186, docs/bank-suspense.md): a USD statement credit that matches no
 * virtual account is at the bank but nobody's yet. It is posted at import to `bank_suspense`
 * (bank_clearing -> bank_suspense, once per statement line) and moved out, by the exact opposite
 * entry, when finance assigns the line (then credited as any bank deposit) or returns it, and
 * back in when the payer's bank sends a paid bank return of it back (returnToBankSuspense).
 */
const suspenseInput = z.object({ lineId: idSchema, amountUsdMicros: microsSchema });

/** An unmatched credit line into suspense, once per line. */
export async function postBankSuspense(
  client: Queryable,
  input: { lineId: string; amountUsdMicros: bigint },
): Promise<{ entryId: string }> {
  const { lineId, amountUsdMicros } = parseInput(suspenseInput, input);
  const { entryId } = await postSystemEntry(
    client,
    "bank_suspense_in",
    lineId,
    transferLines("bank_clearing", "bank_suspense", amountUsdMicros),
  );
  return { entryId };
}

/**
 * A line's stays in suspense: the first from its import, referenced by the line's id; a later one
 * when the payer's bank sent back a bank return's payout of it after it was paid (the money at the
 * bank again, nobody's), referenced by `<line id>:<payout key>`. Each stay's `bank_suspense_out`
 * has its reference. The latest stay's reference; null when the line never entered suspense.
 */
async function latestStay(client: Queryable, lineId: string): Promise<string | null> {
  // A line has one stay, or one more per sent-back payout: few rows among the suspense entries.
  const { rows } = await client.query<{ reference: string }>(
    `SELECT reference FROM journal_entries
      WHERE kind = 'bank_suspense_in' AND (reference = $1 OR starts_with(reference, $1 || ':'))
      ORDER BY seq DESC LIMIT 1`,
    [lineId],
  );
  return rows[0]?.reference ?? null;
}

/**
 * A line leaves suspense (assigned or returned): the opposite of its latest stay's entry, once per
 * stay (a repeat answers the first); null when it never entered.
 */
export async function releaseBankSuspense(client: Queryable, lineId: string): Promise<{ entryId: string } | null> {
  const stay = await latestStay(client, lineId);
  return stay ? postSystemReversal(client, "bank_suspense_in", "bank_suspense_out", stay) : null;
}

/**
 * A line out of suspense is in it again: the payer's bank sent back the bank return's payout
 * `payoutKey` that took it out. A new stay (`<line id>:<payout key>`), the opposite of the last
 * stay's `bank_suspense_out`, once per payout key (a repeat answers the first); null when the line
 * never entered suspense (imported before it existed).
 */
export async function returnToBankSuspense(
  client: Queryable,
  input: { lineId: string; payoutKey: string },
): Promise<{ entryId: string } | null> {
  const reference = `${input.lineId}:${input.payoutKey}`;
  const stay = await latestStay(client, input.lineId);
  if (!stay) return null;
  const out = await findEntry(client, "bank_suspense_out", stay);
  if (!out) {
    const repeat = stay === reference ? await findEntry(client, "bank_suspense_in", reference) : null;
    if (repeat) return { entryId: repeat.id };
    throw new ConflictError(`statement line ${input.lineId} is in suspense: it cannot come back to it`);
  }
  const lines = out.lines.map((line) => ({ ...line, side: oppositeSide(line.side) }));
  const { entryId } = await postSystemEntry(client, "bank_suspense_in", reference, lines);
  return { entryId };
}

export interface BankSuspense {
  /** Statement lines in suspense now (posted in, not out). */
  lines: number;
  amountUsdMicros: bigint;
  /** When the oldest of them was posted; null when none. */
  oldestSince: Date | null;
}

/** What sits in suspense and since when (`ledger check`, the finance pages). */
export async function readBankSuspense(q: Queryable): Promise<BankSuspense> {
  const { rows } = await q.query<{ lines: string; amount: string; oldest: Date | null }>(
    `SELECT count(*)::text AS lines, coalesce(sum(l.amount), 0)::text AS amount, min(e.created_at) AS oldest
       FROM journal_entries e
       JOIN journal_lines l ON l.entry_id = e.id AND l.side = 'credit'
      WHERE e.kind = 'bank_suspense_in'
        AND NOT EXISTS (SELECT 1 FROM journal_entries o WHERE o.kind = 'bank_suspense_out' AND o.reference = e.reference)`,
  );
  const row = rows[0];
  return {
    lines: Number(row?.lines ?? 0),
    amountUsdMicros: BigInt(row?.amount ?? 0),
    oldestSince: row?.oldest ?? null,
  };
}

/** The suspense account's balance must be what its open lines add up to. */
export async function bankSuspenseProblems(q: Queryable, open: BankSuspense): Promise<string[]> {
  const { rows } = await q.query<{ balance: string }>(
    `SELECT b.balance::text AS balance FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id
      WHERE a.kind = 'bank_suspense' AND a.merchant_id IS NULL`,
  );
  const balance = BigInt(rows[0]?.balance ?? 0);
  return balance === open.amountUsdMicros
    ? []
    : [
        `bank_suspense holds ${formatUsd(balance)} USD but its open lines add up to ${formatUsd(open.amountUsdMicros)} USD`,
      ];
}
