import type { ChainId } from "@mp/core";
import type { Queryable } from "@mp/db";
import { appendDepositEvents } from "@mp/events";
import { postDepositReversal } from "@mp/ledger";
import { deleteBlocksAbove } from "./block-store.ts";
import { moveCursor } from "./cursor-store.ts";
import { rollBackTreasuryReceipts } from "./treasury-receipts.ts";
import { rollBackTreasuryUtxos } from "./treasury-utxos.ts";

export interface RollbackResult {
  /** Deposits set to REVERSED (PENDING and CONFIRMED). */
  reversed: number;
  /** Of those, CONFIRMED ones whose credit got a reversal entry. */
  creditsReversed: number;
}

/**
 * Undoes everything above `ancestor`, inside the caller's transaction: live deposits in those blocks
 * become REVERSED (a credited one gets its reversal entry) with a `deposit.reversed` event each, their
 * block hashes are forgotten and the
 * cursor moves back to `ancestor` (NULL when that is below the start height). Returns null, having
 * changed nothing the caller should keep, when the cursor is no longer at `expectedCursor`.
 */
export async function rollBackAbove(
  q: Queryable,
  options: { chain: ChainId; ancestor: number; expectedCursor: number | null; startHeight: number },
): Promise<RollbackResult | null> {
  const { chain, ancestor } = options;
  const newCursor = ancestor < options.startHeight ? null : ancestor;
  if (!(await moveCursor(q, chain, options.expectedCursor, newCursor))) return null;
  const { rows } = await q.query<{ id: string; merchant_id: string; status: "PENDING" | "CONFIRMED" }>(
    `SELECT id, merchant_id, status FROM deposits
      WHERE chain = $1 AND block_height > $2 AND status IN ('PENDING', 'CONFIRMED')
      ORDER BY block_height, id FOR UPDATE`,
    [chain, ancestor],
  );
  let creditsReversed = 0;
  for (const row of rows) {
    let reversalEntryId: string | null = null;
    if (row.status === "CONFIRMED") {
      const reversal = await postDepositReversal(q, { depositId: row.id, merchantId: row.merchant_id });
      reversalEntryId = reversal?.entryId ?? null;
      if (reversal) creditsReversed++;
    }
    await q.query(
      `UPDATE deposits SET status = 'REVERSED', reversed_at = now(), updated_at = now(), reversal_entry_id = $2
        WHERE id = $1`,
      [row.id, reversalEntryId],
    );
  }
  await appendDepositEvents(
    q,
    rows.map((row) => ({ type: "deposit.reversed" as const, depositId: row.id })),
  );
  await rollBackTreasuryUtxos(q, chain, ancestor);
  await rollBackTreasuryReceipts(q, chain, ancestor);
  await deleteBlocksAbove(q, chain, ancestor);
  return { reversed: rows.length, creditsReversed };
}
