import { findCommonAncestor } from "./common-ancestor.ts";
import type { IndexerContext } from "./indexer-context.ts";
import { rollBackAbove } from "./roll-back.ts";
import { idleTick, type TickResult } from "./tick-result.ts";

/** Rolls back above the common ancestor with the node's chain; returns the tick's result. */
export async function rollBackReorg(
  ctx: IndexerContext,
  head: number,
  cursor: number | null,
  reason: string,
): Promise<TickResult> {
  const { db, chain, config, logger, metrics, labels } = ctx;
  const ancestor = await findCommonAncestor({ q: db, chain, head, headers: ctx.headersOf, logger });
  const result = await ctx.leadership.fenced((client) =>
    rollBackAbove(client, { chain, ancestor, expectedCursor: cursor, startHeight: config.startHeight }),
  );
  if (!result) throw new Error(`the ${chain} cursor moved under this indexer (another indexer is running)`);
  const indexedHeight = ancestor < config.startHeight ? null : ancestor;
  logger.warn(
    { chain, reason, ancestor, from: cursor, reversed: result.reversed, creditsReversed: result.creditsReversed },
    "chain reorganisation rolled back",
  );
  metrics?.reorgs.inc(labels);
  metrics?.depositsReversed.inc(labels, result.reversed);
  return {
    ...idleTick(true, head, indexedHeight),
    reorgAncestor: ancestor,
    depositsReversed: result.reversed,
    caughtUp: false,
  };
}
