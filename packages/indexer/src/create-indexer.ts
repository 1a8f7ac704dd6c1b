import {
  type BlockHeader,
  type ChainAdapter,
  type ChainConfig,
  ChainMisconfiguredError,
  type Logger,
  type ScanRange,
} from "@mp/core";
import type { WatchSet } from "@mp/custody";
import {
  assertLeader,
  createLeaseKeeper,
  type Database,
  LeadershipLostError,
  type Lease,
  type LeaseKeeper,
  type Queryable,
} from "@mp/db";
import type { RateProvider } from "@mp/providers";
import { backoffDelay, createSleeper } from "./backoff.ts";
import { insertBlocks, pruneBlocks, storedBlockBelow, storedTip } from "./block-store.ts";
import { findCommonAncestor } from "./common-ancestor.ts";
import { confirmDeposits } from "./confirm-deposits.ts";
import { clearStopped, moveCursor, readCursor, recordHead, recordStopped } from "./cursor-store.ts";
import type { IndexerMetrics } from "./indexer-metrics.ts";
import { recordDeposits } from "./record-deposits.ts";
import { rollBackAbove } from "./roll-back.ts";
import { scanRange } from "./scan-range.ts";
import { confirmTreasuryReceipts } from "./treasury-receipts.ts";

export interface IndexerOptions {
  db: Database;
  adapter: ChainAdapter;
  config: ChainConfig;
  watch: WatchSet;
  rates: RateProvider;
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
   * cursor not moved; "after-credit": credit posted, deposit not marked CONFIRMED). Throwing there
   * simulates a crash: the transaction rolls back. "before-record": the range is scanned, its
   * transaction not begun.
   */
  failpoint?: (name: string) => void | Promise<void>;
}

/** What one iteration did. */
export interface TickResult {
  /** False when another indexer leads the chain (holds its lease): this one did nothing. */
  active: boolean;
  head: number | null;
  indexedHeight: number | null;
  /** The range scanned and recorded, if any. */
  scanned: ScanRange | null;
  /** Set when a reorganisation was rolled back to this height (nothing was scanned then). */
  reorgAncestor: number | null;
  depositsSeen: number;
  depositsConfirmed: number;
  depositsReversed: number;
  /** Nothing left to scan up to the head: the loop may wait a poll interval. */
  caughtUp: boolean;
  /** Where the iteration's time went, in milliseconds (zero for a step that did not run). */
  timings: TickTimings;
}

export interface TickTimings {
  /** Headers and transfers of the range from the node. */
  scanMs: number;
  /** The transaction that records deposits, block hashes and the cursor. */
  recordMs: number;
  /** Confirming and crediting the deposits that reached their confirmations. */
  confirmMs: number;
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
  const { db, adapter, config, watch, rates, metrics } = options;
  const chain = config.chain;
  const logger = options.logger;
  const failpoint = options.failpoint ?? (() => undefined);
  const leaseName = `indexer:${chain}`;
  const leaseSeconds = options.leases?.seconds ?? options.leaseSeconds ?? 10;
  /** The keeper this indexer made for itself (no shared one given): stopped with the indexer. */
  let ownKeeper: LeaseKeeper | undefined;
  const keeper = (): LeaseKeeper => {
    if (options.leases) return options.leases;
    ownKeeper ??= createLeaseKeeper({
      db: options.lockDb ?? db,
      role: "indexer",
      seconds: leaseSeconds,
      logger,
    });
    return ownKeeper;
  };
  /** The lease this indexer leads under, while it does. */
  let leading: Lease | undefined;
  /**
   * The fencing guard of every write (leases.ts). A writer that stops answering inside its
   * transaction has its session ended by the server after half the bound, so it cannot keep a
   * standby out with the lease row's share lock.
   */
  const fence = (q: Queryable): Promise<void> => {
    if (!leading) throw new Error(`the ${chain} indexer writes without leading`);
    return assertLeader(q, leading, { idleTimeoutMs: leaseSeconds * 500 });
  };
  /** `fn` in one transaction, behind the guard. */
  const fenced = <T>(fn: (q: Queryable) => Promise<T>): Promise<T> =>
    db.tx(async (client) => {
      await fence(client);
      return fn(client);
    });
  const sleeper = createSleeper();
  const window = Math.max(config.confirmations * 2, MIN_BLOCK_WINDOW);
  const labels = { chain };
  /** Assets the last iteration counted deposits awaiting a rate for. */
  let awaitingAssets = new Set<string>();
  let stopping = false;
  /** verifyNetwork() passed since start(): checked once per start, before the first scan. */
  let verified = false;
  /** The node answered a head below the indexed tip at the last look (logged once per episode). */
  let waitingForNode = false;
  let loop: Promise<void> | undefined;

  const rpc = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      metrics?.rpcErrors.inc(labels);
      throw error;
    }
  };
  const headersOf = (from: number, to: number) => rpc(() => adapter.headers({ from, to }));

  const idle = (active: boolean, head: number | null, indexedHeight: number | null): TickResult => ({
    active,
    head,
    indexedHeight,
    scanned: null,
    reorgAncestor: null,
    depositsSeen: 0,
    depositsConfirmed: 0,
    depositsReversed: 0,
    caughtUp: true,
    timings: { scanMs: 0, recordMs: 0, confirmMs: 0 },
  });

  /** Rolls back above the common ancestor; returns the tick's result. */
  const rollBack = async (head: number, cursor: number | null, reason: string): Promise<TickResult> => {
    const ancestor = await findCommonAncestor({ q: db, chain, head, headers: headersOf, logger });
    const result = await fenced((client) =>
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
      ...idle(true, head, indexedHeight),
      reorgAncestor: ancestor,
      depositsReversed: result.reversed,
      caughtUp: false,
    };
  };

  /** Headers to keep: those in the window below the head, and always the batch's last (the next parent). */
  const blocksToKeep = (headers: BlockHeader[], head: number): BlockHeader[] => {
    const last = headers.at(-1);
    return headers.filter((h) => h.height > head - window || h === last);
  };

  const tick = async (): Promise<TickResult> => {
    const lease = await keeper().acquire(leaseName);
    if (lease?.epoch !== leading?.epoch) {
      if (lease) logger.info({ chain, epoch: lease.epoch.toString() }, "leading the chain");
      else logger.warn({ chain }, "no longer leading the chain: standing by");
    }
    leading = lease ?? undefined;
    if (!lease) return idle(false, null, null);
    try {
      return await lead();
    } catch (error) {
      if (!(error instanceof LeadershipLostError)) throw error;
      // Deposed between two iterations (a hang, a lost connection): the guard refused the write,
      // nothing was written. Rejoin as a standby; the keeper may give the chain back later.
      keeper().lost(lease);
      leading = undefined;
      logger.warn({ chain, epoch: lease.epoch.toString() }, "lost the chain: another process leads it; standing by");
      return idle(false, null, null);
    }
  };

  /** One iteration as the chain's leader: every write behind the guard. */
  const lead = async (): Promise<TickResult> => {
    if (!verified) {
      // Wrong network, chain id or credentials, or a node without the history from where this
      // indexer goes on, stop the chain here, before anything is indexed.
      const position = (await readCursor(db, chain)).indexedHeight;
      await rpc(() => adapter.verifyNetwork(position === null ? config.startHeight : position + 1));
      await fenced((q) => clearStopped(q, chain));
      metrics?.misconfigured.set(labels, 0);
      verified = true;
    }
    // Head first, then the watch set: a payment in a block at or below this head was made after its
    // wallet existed, so the refresh that follows is sure to know the address.
    const head = await rpc(() => adapter.head());
    await watch.refresh();
    const cursor = (await readCursor(db, chain)).indexedHeight;

    // The stored tip must still be on the node's chain; if it is, so is everything below it.
    const tip = await storedTip(db, chain);
    if (tip && tip.height > head) {
      // A node behind what we indexed is far more often a lagging node (a load-balanced pool's other
      // backend, a node catching up) than a reorganisation to a shorter chain: only a stored block
      // the node shows with another hash proves a reorg. Until then, wait for the node.
      const below = await storedBlockBelow(db, chain, head + 1);
      const [onNode] = below ? await headersOf(below.height, below.height) : [];
      if (below && onNode?.hash !== below.hash) {
        return rollBack(head, cursor, `stored block ${below.height} no longer on the chain`);
      }
      if (!waitingForNode)
        logger.warn({ chain, head, indexedTip: tip.height }, "node is behind the indexed tip: waiting");
      waitingForNode = true;
      return idle(true, head, cursor);
    }
    if (waitingForNode) logger.info({ chain, head }, "node caught up with the indexed tip");
    waitingForNode = false;
    await fenced((q) => recordHead(q, chain, head));
    metrics?.headHeight.set(labels, head);
    if (tip) {
      const [onNode] = await headersOf(tip.height, tip.height);
      if (onNode?.hash !== tip.hash) return rollBack(head, cursor, "stored tip no longer on the chain");
    }

    let indexedHeight = cursor;
    let scanned: ScanRange | null = null;
    let depositsSeen = 0;
    const timings: TickTimings = { scanMs: 0, recordMs: 0, confirmMs: 0 };
    let started = performance.now();
    const from = cursor === null ? config.startHeight : cursor + 1;
    const to = Math.min(head, from + config.batchSize - 1);
    if (from <= to) {
      const range = { from, to };
      const { headers, transfers } = await scanRange(adapter, range, watch, rpc);
      timings.scanMs = performance.now() - started;
      started = performance.now();
      const first = headers[0];
      if (first) {
        const parent = await storedBlockBelow(db, chain, first.height);
        if (parent && parent.hash !== first.parentHash) {
          return rollBack(head, cursor, `block ${first.height} does not extend stored block ${parent.height}`);
        }
      }
      await failpoint("before-record");
      const moved = await fenced(async (client) => {
        depositsSeen = await recordDeposits(client, chain, config.confirmations, transfers);
        await failpoint("after-deposits");
        await insertBlocks(client, chain, blocksToKeep(headers, head));
        if (!(await moveCursor(client, chain, cursor, to))) return false;
        await pruneBlocks(client, chain, to - window);
        return true;
      });
      if (!moved) throw new Error(`the ${chain} cursor moved under this indexer (another indexer is running)`);
      timings.recordMs = performance.now() - started;
      indexedHeight = to;
      scanned = range;
      metrics?.depositsSeen.inc(labels, depositsSeen);
      if (depositsSeen > 0) logger.info({ chain, from, to, deposits: depositsSeen }, "deposits seen");
    }
    if (indexedHeight !== null) {
      metrics?.indexedHeight.set(labels, indexedHeight);
      metrics?.lag.set(labels, Math.max(0, head - indexedHeight));
    }

    started = performance.now();
    const { confirmed: depositsConfirmed, awaitingRate } = await confirmDeposits({
      db,
      chain,
      head,
      rates,
      logger,
      failpoint,
      fence,
    });
    // An asset that waited and no longer does is set back to 0, not left at its last count.
    for (const asset of awaitingAssets) {
      if (!awaitingRate.has(asset)) metrics?.depositsAwaitingRate.set({ chain, asset }, 0);
    }
    awaitingAssets = new Set(awaitingRate.keys());
    for (const [asset, deposits] of awaitingRate) metrics?.depositsAwaitingRate.set({ chain, asset }, deposits);
    // Counted as soon as they committed: a reader that sees a deposit CONFIRMED finds it counted too.
    metrics?.depositsConfirmed.inc(labels, depositsConfirmed);
    if (depositsConfirmed > 0) logger.info({ chain, head, deposits: depositsConfirmed }, "deposits confirmed");
    // The operator's float at a treasury address confirms at the same depth (treasury-receipts.ts).
    await confirmTreasuryReceipts({ db, chain, head, rates, logger, fence });
    timings.confirmMs = performance.now() - started;
    return {
      active: true,
      head,
      indexedHeight,
      scanned,
      reorgAncestor: null,
      depositsSeen,
      depositsConfirmed,
      depositsReversed: 0,
      caughtUp: (indexedHeight ?? config.startHeight - 1) >= head,
      timings,
    };
  };

  /** Records why the chain stops (GET /v1/chains, /metrics) and says it once. */
  const stopMisconfigured = async (error: ChainMisconfiguredError): Promise<void> => {
    metrics?.misconfigured.set(labels, 1);
    logger.error(
      { chain, code: error.code, err: error.message },
      "chain misconfigured: its indexer stopped until the configuration is fixed",
    );
    try {
      // Said by the leader only: a deposed indexer's view of the node is not the chain's state.
      if (leading) await fenced((q) => recordStopped(q, chain, error.message));
    } catch (recordError) {
      logger.warn({ chain, err: String(recordError) }, "could not record why the indexer stopped");
    }
  };

  const run = async (): Promise<void> => {
    let failures = 0;
    try {
      while (!stopping) {
        try {
          const started = performance.now();
          const result = await tick();
          failures = 0;
          // Ticks start a poll interval apart (the tick's own time counts, not added to the wait), so a
          // new block waits at most one interval plus the tick that sees it.
          // A standby looks again sooner: the keeper takes a free lease within its own poll
          // (~250 ms), and the chain should be indexed right after (fast takeover, issue 19).
          const interval = result.active ? config.pollIntervalMs : Math.min(config.pollIntervalMs, STANDBY_POLL_MS);
          if (!result.active || result.caughtUp) {
            await sleeper.sleep(Math.max(0, interval - (performance.now() - started)));
          }
        } catch (error) {
          const misconfigured = misconfiguration(error);
          if (misconfigured) {
            await stopMisconfigured(misconfigured);
            return;
          }
          failures++;
          const delayMs = backoffDelay(failures, config.pollIntervalMs);
          metrics?.tickErrors.inc(labels);
          logger.warn({ chain, err: String(error), failures, retryInMs: delayMs }, "indexer iteration failed");
          if (!stopping) await sleeper.sleep(delayMs);
        }
      }
    } finally {
      await handOver();
    }
  };

  /** Gives the chain's lease up (a standby takes it at its next poll) and stops the own keeper. */
  const handOver = async (): Promise<void> => {
    leading = undefined;
    const own = ownKeeper;
    ownKeeper = undefined;
    if (options.leases) await options.leases.unwant(leaseName);
    if (own) await own.stop();
  };

  return {
    start() {
      if (loop) throw new Error(`the ${chain} indexer is already running`);
      stopping = false;
      verified = false;
      loop = run().finally(() => {
        loop = undefined;
      });
      return loop;
    },
    async stop() {
      stopping = true;
      sleeper.wake();
      if (loop) await loop;
      else await handOver();
    },
    tick,
  };
}

/** The ChainMisconfiguredError in `error` or its causes: a configuration fault, never retried. */
function misconfiguration(error: unknown): ChainMisconfiguredError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof ChainMisconfiguredError) return e;
  }
  return undefined;
}
