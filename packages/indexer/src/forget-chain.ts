import type { ChainId } from "@mp/core";
import type { Database } from "@mp/db";
import { readCursor } from "./cursor-store.ts";
import { type RollbackResult, rollBackAbove } from "./roll-back.ts";

/**
 * For a chain that was replaced wholesale (the local sandbox's nodes start from genesis at every
 * start): everything indexed from the old chain is rolled back as one reorg below its first block.
 * Live deposits become REVERSED (credited ones get their reversal entry, so the ledger still
 * balances and `ledger check` passes), block hashes are forgotten and the cursor starts over.
 * Never call it for a real network: there a deep rollback is an incident, not a restart.
 */
export async function forgetChain(db: Database, chain: ChainId): Promise<RollbackResult> {
  return db.tx(async (q) => {
    // Serialise with a running indexer's cursor moves on this chain.
    await q.query("SELECT 1 FROM chain_cursors WHERE chain = $1 FOR UPDATE", [chain]);
    const cursor = await readCursor(q, chain);
    const result = await rollBackAbove(q, {
      chain,
      ancestor: -1,
      expectedCursor: cursor.indexedHeight,
      startHeight: 0,
    });
    // No cursor row yet: nothing was ever indexed, so nothing to undo.
    return result ?? { reversed: 0, creditsReversed: 0 };
  });
}
