import { checkStoredTip } from "./check-stored-tip.ts";
import { confirmReached } from "./confirm-reached.ts";
import { clearStopped, readCursor } from "./cursor-store.ts";
import { indexNextRange } from "./index-next-range.ts";
import type { IndexerContext } from "./indexer-context.ts";
import type { TickResult } from "./tick-result.ts";

/** What a leading indexer carries from one iteration to the next. */
export interface LeaderState {
  /** verifyNetwork() passed since start(): checked once per start, before the first scan. */
  verified: boolean;
  /** Assets the last iteration counted deposits awaiting a rate for. */
  awaitingAssets: Set<string>;
  /** The node answered a head below the indexed tip at the last look (logged once per episode). */
  waitingForNode: boolean;
}

/**
 * One iteration as the chain's leader, every write behind the guard: verify the node (once), read
 * the head, check the stored tip (reorg -> roll back), index the next batch, confirm and credit.
 */
export async function leadTick(ctx: IndexerContext, state: LeaderState): Promise<TickResult> {
  const { db, chain, config, adapter, metrics, labels } = ctx;
  if (!state.verified) {
    // Wrong network, chain id or credentials, or a node without the history from where this
    // indexer goes on, stop the chain here, before anything is indexed.
    const position = (await readCursor(db, chain)).indexedHeight;
    await ctx.rpc(() => adapter.verifyNetwork(position === null ? config.startHeight : position + 1));
    await ctx.leadership.fenced((q) => clearStopped(q, chain));
    metrics?.misconfigured.set(labels, 0);
    state.verified = true;
  }
  // Head first, then the watch set: a payment in a block at or below this head was made after its
  // wallet existed, so the refresh that follows is sure to know the address.
  const head = await ctx.rpc(() => adapter.head());
  await ctx.watch.refresh();
  const cursor = (await readCursor(db, chain)).indexedHeight;
  const stop = await checkStoredTip(ctx, head, cursor, state);
  if (stop) return stop;
  const indexed = await indexNextRange(ctx, head, cursor);
  if ("active" in indexed) return indexed;
  const { indexedHeight } = indexed;
  if (indexedHeight !== null) {
    metrics?.indexedHeight.set(labels, indexedHeight);
    metrics?.lag.set(labels, Math.max(0, head - indexedHeight));
  }
  const started = performance.now();
  const confirmed = await confirmReached(ctx, head, state.awaitingAssets);
  state.awaitingAssets = confirmed.awaitingAssets;
  return {
    active: true,
    head,
    indexedHeight,
    scanned: indexed.scanned,
    reorgAncestor: null,
    depositsSeen: indexed.depositsSeen,
    depositsConfirmed: confirmed.confirmed,
    depositsReversed: 0,
    caughtUp: (indexedHeight ?? config.startHeight - 1) >= head,
    timings: { scanMs: indexed.scanMs, recordMs: indexed.recordMs, confirmMs: performance.now() - started },
  };
}
