import type { Queryable } from "@mp/db";
import { lockedBankDeposit } from "./take-back-bank-credits.ts";

/** A bank return as its answer's recorder reads it, under its row lock. */
export interface LockedReturnPayout {
  origin: string;
  owed: string;
  line_id: string | null;
  merchant_id: string | null;
  paid_entry_id: string | null;
}

/**
 * Locks a bank return whose payout `payoutKey` the bank answered about, when it is still `state` under
 * that key (a second worker, or a replay after a crash, finds it moved and gets undefined; so does an
 * answer about an older payout of a return an operator sent again). A policy return's bank deposit is
 * locked first, as the take-back (which inserts the return under the deposit's lock) takes them: the
 * other order deadlocked two workers, one taking a credit back while the other recorded its return's
 * answer (found by the fault search, seed 472648280). The bank deposit comes back for the event.
 */
export async function lockReturnPayout(
  sql: Queryable,
  { id, payoutKey }: { id: string; payoutKey: string },
  state: "sending" | "returned",
) {
  const deposit = await sql.query<{ bank_deposit_id: string | null }>(
    "SELECT bank_deposit_id FROM bank_returns WHERE id = $1",
    [id],
  );
  const depositId = deposit.rows[0]?.bank_deposit_id;
  const bankDeposit = depositId ? await lockedBankDeposit(sql, depositId) : undefined;
  const { rows } = await sql.query<LockedReturnPayout>(
    `SELECT origin, owed_usd_micros::text AS owed, statement_line_id AS line_id, merchant_id, paid_entry_id
       FROM bank_returns WHERE id = $1 AND payout_key = $2 AND state = $3 FOR UPDATE`,
    [id, payoutKey, state],
  );
  const row = rows[0];
  return row && { row, bankDeposit };
}
