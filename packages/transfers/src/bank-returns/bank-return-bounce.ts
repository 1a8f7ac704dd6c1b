import type { Queryable } from "@mp/db";
import { appendResourceEvent } from "@mp/events";
import { postBankReturnBounced, returnToBankSuspense } from "@mp/ledger";
import { lockReturnPayout } from "./bank-return-locks.ts";

/** Why a paid bank return is owed again: the bank's words, as a returned transfer payout tells them. */
export function bouncedReason(bankReason: string): string {
  return `the payer's bank sent the return back after it was paid: ${bankReason}; it is still owed`.slice(0, 500);
}

/**
 * The payer's bank sent back bank return `id`'s payout `payoutKey` after the bank paid it (the
 * provider answers RETURNED about a `returned` return: a statement line returning the payout, the
 * sandbox's R03). In the caller's transaction, under the return's bank deposit's lock then its own
 * (the order every writer of a policy return takes): the money comes back into the books, the
 * opposite of what its payment posted (a policy return: `bank_return_bounced`, bank_clearing ->
 * returns_payable; a suspense return: its line in suspense again, a new `bank_suspense_in`), the
 * payout recorded in bank_return_bounces, and the return `failed` with the bank's reason, still
 * owed: an operator sends it again (a new payout key) or closes it. A policy return's merchant is
 * told `bank_deposit.return_failed`. Once per payout key: a second worker, a replay after a crash or
 * the same statement imported again finds the return no longer `returned` under that key (or the
 * key recorded) and does nothing. True when it moved the return.
 */
export async function recordBankReturnBounce(
  sql: Queryable,
  { id, payoutKey }: { id: string; payoutKey: string },
  bankReason: string,
): Promise<boolean> {
  const locked = await lockReturnPayout(sql, { id, payoutKey }, "returned");
  if (!locked) return false;
  const { row, bankDeposit } = locked;
  const reason = bouncedReason(bankReason);
  let bounced: { entryId: string } | null = null;
  if (row.origin !== "suspense") {
    bounced = await postBankReturnBounced(sql, { payoutKey, owedUsdMicros: BigInt(row.owed) });
  } else if (row.line_id && row.paid_entry_id) {
    bounced = await returnToBankSuspense(sql, { lineId: row.line_id, payoutKey });
  }
  const recorded = await sql.query(
    `INSERT INTO bank_return_bounces (payout_key, return_id, paid_entry_id, bounce_entry_id, reason)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (payout_key) DO NOTHING`,
    [payoutKey, id, bounced ? row.paid_entry_id : null, bounced?.entryId ?? null, reason],
  );
  if ((recorded.rowCount ?? 0) === 0) return false;
  await sql.query(
    `UPDATE bank_returns SET state = 'failed', reason = $2, paid_entry_id = NULL, returned_at = NULL, updated_at = now()
      WHERE id = $1`,
    [id, reason],
  );
  if (row.merchant_id && bankDeposit) {
    await appendResourceEvent(sql, row.merchant_id, "bank_deposit.return_failed", bankDeposit);
  }
  return true;
}
