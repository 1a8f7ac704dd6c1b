import type { Sleeper } from "./backoff.ts";
import { backoffDelay } from "./backoff.ts";
import { misconfiguration, stopMisconfigured } from "./chain-misconfiguration.ts";
import type { IndexerContext } from "./indexer-context.ts";
import type { TickResult } from "./tick-result.ts";

export interface IndexerLoopOptions {
  tick: () => Promise<TickResult>;
  sleeper: Sleeper;
  stopping: () => boolean;
  /** How often a standby asks its keeper whether it leads the chain now. */
  standbyPollMs: number;
}

/**
 * Ticks until stopping, retrying failures with backoff; a ChainMisconfiguredError ends the loop
 * (recorded, never retried). Hands the chain's lease over when it ends.
 */
export async function runIndexerLoop(ctx: IndexerContext, loop: IndexerLoopOptions): Promise<void> {
  const { chain, config, metrics, labels, logger } = ctx;
  let failures = 0;
  try {
    while (!loop.stopping()) {
      try {
        const started = performance.now();
        const result = await loop.tick();
        failures = 0;
        // Ticks start a poll interval apart (the tick's own time counts, not added to the wait), so a
        // new block waits at most one interval plus the tick that sees it.
        // A standby looks again sooner: the keeper takes a free lease within its own poll
        // (~250 ms), and the chain should be indexed right after (fast takeover, issue 19).
        const interval = result.active ? config.pollIntervalMs : Math.min(config.pollIntervalMs, loop.standbyPollMs);
        if (!result.active || result.caughtUp) {
          await loop.sleeper.sleep(Math.max(0, interval - (performance.now() - started)));
        }
      } catch (error) {
        const misconfigured = misconfiguration(error);
        if (misconfigured) {
          await stopMisconfigured(ctx, misconfigured);
          return;
        }
        failures++;
        const delayMs = backoffDelay(failures, config.pollIntervalMs);
        metrics?.tickErrors.inc(labels);
        logger.warn({ chain, err: String(error), failures, retryInMs: delayMs }, "indexer iteration failed");
        if (!loop.stopping()) await loop.sleeper.sleep(delayMs);
      }
    }
  } finally {
    await ctx.leadership.handOver();
  }
}
