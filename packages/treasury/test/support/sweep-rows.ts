import type { ChainId } from "@mp/core";
import type { Database } from "@mp/db";
import { getMerchantBalance } from "@mp/ledger";
import { expect } from "vitest";
import type { DepositMerchant } from "./evm-deposits.ts";

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

/** A treasury_sweeps row as the Bitcoin and Tron sweep tests read it, with its top-up send. */
export interface SweepRow extends SweepRowColumns {
  send_id: string | null;
  top_up_send_id: string | null;
  top_up_amount: string | null;
  top_up_state: string | null;
}

/** The merchant's sweeps, by address and asset. */
export async function sweepsOf(db: Database, merchant: DepositMerchant): Promise<SweepRow[]> {
  const { rows } = await db.query<SweepRow>(
    `SELECT w.id, w.deposit_address, w.asset, w.state, w.covered_raw::text, w.amount_raw::text, w.fee_paid_raw::text,
            w.tx_hash, w.send_id, w.top_up_send_id, s.amount_raw::text AS top_up_amount, s.state AS top_up_state
       FROM treasury_sweeps w JOIN destinations d ON d.id = w.destination_id
       LEFT JOIN treasury_sends s ON s.id = w.top_up_send_id
      WHERE d.merchant_id = $1 ORDER BY w.deposit_address, w.asset`,
    [merchant.merchantId],
  );
  return rows;
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

/** The attempts that carry a send, oldest first. */
export async function attemptsOfSend(db: Database, sendId: string) {
  const { rows } = await db.query<{ tx_hash: string; state: string; raw: string }>(
    `SELECT a.tx_hash, a.state, a.raw FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id
      WHERE x.send_id = $1 ORDER BY a.created_at`,
    [sendId],
  );
  return rows;
}

/** Journal entries touching the merchant's accounts: a sweep must add none. */
export async function journalEntries(db: Database, merchantId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM journal_entries e WHERE EXISTS (
       SELECT 1 FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
        WHERE l.entry_id = e.id AND a.merchant_id = $1)`,
    [merchantId],
  );
  return rows[0]?.n ?? 0;
}

/** What a sweep must leave as it was: the merchant's balance and the journal entries touching it (custody moves, merchant money does not). */
async function merchantMoney(db: Database, merchantId: string) {
  return { balance: await getMerchantBalance(db, merchantId), entries: await journalEntries(db, merchantId) };
}

/**
 * The merchant's money taken before its deposits are swept; `expectSweptOnce` closes a family's
 * sweep test: custody moved, that money did not, and `again` (more sweeper passes) opens no sweep
 * beyond the `count` made.
 */
export async function moneyBeforeSweeps(db: Database, merchant: DepositMerchant) {
  const money = await merchantMoney(db, merchant.merchantId);
  return {
    async expectSweptOnce(count: number, again: () => Promise<void>): Promise<void> {
      expect(await merchantMoney(db, merchant.merchantId)).toEqual(money);
      await again();
      expect(await sweepsOf(db, merchant)).toHaveLength(count);
    },
  };
}

/** A fetch that never delivers a broadcast to `path` (the signer died after storing the attempt, before sending it). */
export function fetchWithoutBroadcast(marker: string): typeof globalThis.fetch {
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const body = typeof init?.body === "string" ? init.body : "";
    if (url.includes(marker) || body.includes(`"${marker}"`)) {
      return Promise.reject(new Error("crash: killed before broadcast"));
    }
    return fetch(input, init);
  };
}
