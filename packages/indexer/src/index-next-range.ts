import type { BlockHeader, ScanRange } from "@mp/core";
import { insertBlocks, pruneBlocks, storedBlockBelow } from "./block-store.ts";
import { moveCursor } from "./cursor-store.ts";
import type { IndexerContext } from "./indexer-context.ts";
import { recordDeposits } from "./record-deposits.ts";
import { rollBackReorg } from "./roll-back-reorg.ts";
import { scanRange } from "./scan-range.ts";
import type { TickResult } from "./tick-result.ts";

export interface RangeIndexed {
  indexedHeight: number | null;
  scanned: ScanRange | null;
  depositsSeen: number;
  scanMs: number;
  recordMs: number;
}

/**
 * Scans the next batch [cursor+1, min(head, cursor+batchSize)] and records its deposits, block
 * hashes and the new cursor in one transaction; a batch that does not extend the stored blocks
 * rolls back instead (its TickResult returned).
 */
export async function indexNextRange(
  ctx: IndexerContext,
  head: number,
  cursor: number | null,
): Promise<RangeIndexed | TickResult> {
  const { db, chain, config, logger, metrics, labels, failpoint } = ctx;
  const from = cursor === null ? config.startHeight : cursor + 1;
  const to = Math.min(head, from + config.batchSize - 1);
  if (from > to) return { indexedHeight: cursor, scanned: null, depositsSeen: 0, scanMs: 0, recordMs: 0 };
  let started = performance.now();
  const range = { from, to };
  const { headers, transfers } = await scanRange(ctx.adapter, range, ctx.watch, ctx.rpc);
  const scanMs = performance.now() - started;
  started = performance.now();
  const first = headers[0];
  if (first) {
    const parent = await storedBlockBelow(db, chain, first.height);
    if (parent && parent.hash !== first.parentHash) {
      return rollBackReorg(ctx, head, cursor, `block ${first.height} does not extend stored block ${parent.height}`);
    }
  }
  await failpoint("before-record");
  let depositsSeen = 0;
  const moved = await ctx.leadership.fenced(async (client) => {
    depositsSeen = await recordDeposits(client, chain, config.confirmations, transfers);
    await failpoint("after-deposits");
    await insertBlocks(client, chain, blocksToKeep(headers, head, ctx.window));
    if (!(await moveCursor(client, chain, cursor, to))) return false;
    await pruneBlocks(client, chain, to - ctx.window);
    return true;
  });
  if (!moved) throw new Error(`the ${chain} cursor moved under this indexer (another indexer is running)`);
  const recordMs = performance.now() - started;
  metrics?.depositsSeen.inc(labels, depositsSeen);
  if (depositsSeen > 0) logger.info({ chain, from, to, deposits: depositsSeen }, "deposits seen");
  return { indexedHeight: to, scanned: range, depositsSeen, scanMs, recordMs };
}

/** Headers to keep: those in the window below the head, and always the batch's last (the next parent). */
function blocksToKeep(headers: BlockHeader[], head: number, window: number): BlockHeader[] {
  const last = headers.at(-1);
  return headers.filter((h) => h.height > head - window || h === last);
}
