import { storedBlockBelow, storedTip } from "./block-store.ts";
import { recordHead } from "./cursor-store.ts";
import type { IndexerContext } from "./indexer-context.ts";
import { rollBackReorg } from "./roll-back-reorg.ts";
import { idleTick, type TickResult } from "./tick-result.ts";

/** Whether the node answered a head below the indexed tip at the last look (logged once per episode). */
export interface NodeLag {
  waitingForNode: boolean;
}

/**
 * The stored tip must still be on the node's chain; if it is, so is everything below it. Returns
 * the tick's result when the iteration ends here (a reorg rolled back, or waiting for a lagging
 * node), undefined when indexing may go on (the head then recorded).
 */
export async function checkStoredTip(
  ctx: IndexerContext,
  head: number,
  cursor: number | null,
  lag: NodeLag,
): Promise<TickResult | undefined> {
  const { db, chain, logger } = ctx;
  const tip = await storedTip(db, chain);
  if (tip && tip.height > head) {
    // A node behind what we indexed is far more often a lagging node (a load-balanced pool's other
    // backend, a node catching up) than a reorganisation to a shorter chain: only a stored block
    // the node shows with another hash proves a reorg. Until then, wait for the node.
    const below = await storedBlockBelow(db, chain, head + 1);
    const [onNode] = below ? await ctx.headersOf(below.height, below.height) : [];
    if (below && onNode?.hash !== below.hash) {
      return rollBackReorg(ctx, head, cursor, `stored block ${below.height} no longer on the chain`);
    }
    if (!lag.waitingForNode)
      logger.warn({ chain, head, indexedTip: tip.height }, "node is behind the indexed tip: waiting");
    lag.waitingForNode = true;
    return idleTick(true, head, cursor);
  }
  if (lag.waitingForNode) logger.info({ chain, head }, "node caught up with the indexed tip");
  lag.waitingForNode = false;
  await ctx.leadership.fenced((q) => recordHead(q, chain, head));
  ctx.metrics?.headHeight.set(ctx.labels, head);
  if (tip) {
    const [onNode] = await ctx.headersOf(tip.height, tip.height);
    if (onNode?.hash !== tip.hash) return rollBackReorg(ctx, head, cursor, "stored tip no longer on the chain");
  }
  return undefined;
}
