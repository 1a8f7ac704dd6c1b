import { ChainMisconfiguredError } from "@mp/core";
import { recordStopped } from "./cursor-store.ts";
import type { IndexerContext } from "./indexer-context.ts";

/** The ChainMisconfiguredError in `error` or its causes: a configuration fault, never retried. */
export function misconfiguration(error: unknown): ChainMisconfiguredError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof ChainMisconfiguredError) return e;
  }
  return undefined;
}

/** Records why the chain stops (GET /v1/chains, /metrics) and says it once. */
export async function stopMisconfigured(ctx: IndexerContext, error: ChainMisconfiguredError): Promise<void> {
  const { chain, logger } = ctx;
  ctx.metrics?.misconfigured.set(ctx.labels, 1);
  logger.error(
    { chain, code: error.code, err: error.message },
    "chain misconfigured: its indexer stopped until the configuration is fixed",
  );
  try {
    // Said by the leader only: a deposed indexer's view of the node is not the chain's state.
    if (ctx.leadership.leading()) await ctx.leadership.fenced((q) => recordStopped(q, chain, error.message));
  } catch (recordError) {
    logger.warn({ chain, err: String(recordError) }, "could not record why the indexer stopped");
  }
}
