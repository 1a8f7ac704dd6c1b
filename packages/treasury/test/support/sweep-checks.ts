import type { ChainId } from "@mp/core";
import type { Database } from "@mp/db";

/** A sweep row as the sweep tests read it: settled once confirmed or failed. */
interface SettlingSweep {
  state: string;
}

/** The treasury_sweeps columns every family's sweep test reads (amounts as decimal strings). */
export interface SweepRowColumns extends SettlingSweep {
  id: string;
  deposit_address: string;
  asset: string;
  covered_raw: string;
  amount_raw: string;
  fee_paid_raw: string | null;
  tx_hash: string | null;
}

/**
 * A pass of each loop (the sweeper, then the send pipeline) on `chain`, then a block, until `read`
 * gives `expected` sweeps, each confirmed or failed; throws with the first rows after `timeoutMs`.
 */
export async function untilSweepsSettled<T extends SettlingSweep>(
  loops: ReadonlyArray<{ tick(chain: ChainId): Promise<void> }>,
  chain: ChainId,
  mine: () => unknown,
  read: () => Promise<T[]>,
  expected: number,
  timeoutMs = 90_000,
): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const loop of loops) await loop.tick(chain);
    await mine();
    const rows = await read();
    if (rows.length === expected && rows.every((r) => r.state === "confirmed" || r.state === "failed")) return rows;
    if (Date.now() > deadline) throw new Error(`sweeps not settled: ${JSON.stringify(rows.slice(0, 3))}`);
  }
}

/** Journal entries touching the merchant's ledger accounts: a sweep must add none. */
export async function merchantJournalEntries(db: Database, merchantId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM journal_entries e WHERE EXISTS (
       SELECT 1 FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
        WHERE l.entry_id = e.id AND a.merchant_id = $1)`,
    [merchantId],
  );
  return rows[0]?.n ?? 0;
}
