import type { ChainAdapter, ChainConfig, Logger } from "@mp/core";
import type { WatchSet } from "@mp/custody";
import { type Database, LeadershipLostError, type LeaseKeeper } from "@mp/db";
import type { AddressScreening, RateProvider } from "@mp/providers";
import { createSleeper } from "./backoff.ts";
import { createChainLeadership } from "./chain-leadership.ts";
import type { IndexerContext } from "./indexer-context.ts";
import { runIndexerLoop } from "./indexer-loop.ts";
import type { IndexerMetrics } from "./indexer-metrics.ts";
import { type LeaderState, leadTick } from "./lead-tick.ts";
import { idleTick, type TickResult } from "./tick-result.ts";

export type { TickResult, TickTimings } from "./tick-result.ts";

export interface IndexerOptions {
  db: Database;
  adapter: ChainAdapter;
  config: ChainConfig;
  watch: WatchSet;
  rates: RateProvider;
  /** Screens each deposit's sender before it is credited (docs/sanctions.md); absent: none (tests). */
  screening?: AddressScreening;
  logger: Logger;
  metrics?: IndexerMetrics;
  /**
   * The process's lease keeper (one per process: its indexers share its heartbeat, liveness lock
   * and fair share). Without one the indexer keeps its own, on `lockDb` (default `db`), with a
   * bound of `leaseSeconds` (default 10).
   */
  leases?: LeaseKeeper;
  lockDb?: Database;
  leaseSeconds?: number;
  /**
   * Test hook called at named points inside transactions ("after-deposits": deposits inserted,
   * cursor not moved; "after-credit": a chunk's deposits marked CONFIRMED, their events and credits written, not committed). Throwing there
   * simulates a crash: the transaction rolls back. "before-record": the range is scanned, its
   * transaction not begun.
   */
  failpoint?: (name: string) => void | Promise<void>;
}

export interface Indexer {
  /**
   * Runs the loop until stop(): waits to lead the chain (its lease), verifies the node (adapter.verifyNetwork),
   * then indexes, retrying failures with backoff. A ChainMisconfiguredError, from any call, is not
   * retried: the loop records it (GET /v1/chains, indexer_misconfigured) and ends.
   */
  start(): Promise<void>;
  /** Ends the loop (after the current iteration) and hands the chain's lease over. */
  stop(): Promise<void>;
  /**
   * One iteration (for tests): leads the chain if its lease is free, then reorg check, one batch,
   * confirmations. A leader deposed meanwhile writes nothing: its iteration ends inactive.
   */
  tick(): Promise<TickResult>;
}

/** How often a standby indexer asks its keeper whether it leads the chain now. */
const STANDBY_POLL_MS = 100;

/** Block hashes kept below the cursor for reorg checks: twice the confirmations, at least this many. */
const MIN_BLOCK_WINDOW = 16;

/**
 * The chain-agnostic indexer of one chain. Each iteration: refresh the watch set, read the head,
 * verify the stored tip is still on the node's chain (else roll back to the common ancestor in one
 * transaction), scan the next batch [cursor+1, min(head, cursor+batchSize)] and record its deposits,
 * block hashes and the new cursor in one transaction, then confirm and credit deposits that reached
 * their confirmations. The cursor never passes a block whose transfers are not recorded.
 */
export function createIndexer(options: IndexerOptions): Indexer {
  const { adapter, config, metrics } = options;
  const chain = config.chain;
  const labels = { chain };
  const rpc = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      metrics?.rpcErrors.inc(labels);
      throw error;
    }
  };
  const leadership = createChainLeadership({ ...options, chain });
  const ctx: IndexerContext = {
    ...options,
    chain,
    metrics,
    labels,
    leadership,
    failpoint: options.failpoint ?? (() => undefined),
    window: Math.max(config.confirmations * 2, MIN_BLOCK_WINDOW),
    rpc,
    headersOf: (from, to) => rpc(() => adapter.headers({ from, to })),
  };
  const sleeper = createSleeper();
  const state: LeaderState = { verified: false, awaitingAssets: new Set(), waitingForNode: false };
  let stopping = false;
  let loop: Promise<void> | undefined;

  const tick = async (): Promise<TickResult> => {
    const lease = await leadership.acquire();
    if (!lease) return idleTick(false, null, null);
    try {
      return await leadTick(ctx, state);
    } catch (error) {
      if (!(error instanceof LeadershipLostError)) throw error;
      // Deposed between two iterations (a hang, a lost connection): the guard refused the write,
      // nothing was written. Rejoin as a standby; the keeper may give the chain back later.
      leadership.lost(lease);
      options.logger.warn(
        { chain, epoch: lease.epoch.toString() },
        "lost the chain: another process leads it; standing by",
      );
      return idleTick(false, null, null);
    }
  };

  const run = (): Promise<void> =>
    runIndexerLoop(ctx, { tick, sleeper, stopping: () => stopping, standbyPollMs: STANDBY_POLL_MS });

  return {
    start() {
      if (loop) throw new Error(`the ${chain} indexer is already running`);
      stopping = false;
      state.verified = false;
      loop = run().finally(() => {
        loop = undefined;
      });
      return loop;
    },
    async stop() {
      stopping = true;
      sleeper.wake();
      if (loop) await loop;
      else await leadership.handOver();
    },
    tick,
  };
}
