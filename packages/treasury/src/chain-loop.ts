import type { ChainId, Logger } from "@mp/core";
import { createLeaseKeeper, type Database, LeadershipLostError, type Lease, type LeaseKeeper } from "@mp/db";

export interface LeasedChainLoopOptions {
  db: Database;
  logger: Logger;
  /** The process's lease keeper (role "signer"); without one the loop keeps its own on `db`, stopped by stop(). */
  leases?: LeaseKeeper;
  leaseSeconds: number;
  chains: readonly ChainId[];
  /** The lease a pass over `chain` needs (`sender:BASE`, `sweeper:BASE`). */
  leaseName(chain: ChainId): string;
  intervalMs: number;
  /** What runs, for errors and logs ("send pipeline", "sweeper"). */
  what: string;
  /** One pass over `chain` under `lease`; a LeadershipLostError ends it quietly (another process leads). */
  pass(chain: ChainId, lease: Lease): Promise<void>;
}

export interface LeasedChainLoop {
  /** One pass over one chain, if this process holds its lease; passes of one chain never overlap. */
  tick(chain: ChainId): Promise<void>;
  /** Loops every intervalMs per chain. */
  start(): void;
  stop(): Promise<void>;
}

/**
 * The signer's per-chain loops (send pipeline, sweeper): one pass per chain at a time in this
 * process, only while it holds the chain's lease, every `intervalMs`.
 */
export function createLeasedChainLoop(options: LeasedChainLoopOptions): LeasedChainLoop {
  const { db, logger, what } = options;
  const chains = new Set(options.chains);
  let ownKeeper: LeaseKeeper | undefined;
  const keeper = (): LeaseKeeper => {
    if (options.leases) return options.leases;
    ownKeeper ??= createLeaseKeeper({ db, role: "signer", seconds: options.leaseSeconds, logger });
    return ownKeeper;
  };
  /** One pass per chain at a time in this process: a second tick waits for the first. */
  const running = new Map<ChainId, Promise<void>>();
  const timers = new Map<ChainId, NodeJS.Timeout>();
  let stopping = false;

  const pass = async (chain: ChainId): Promise<void> => {
    if (!chains.has(chain)) throw new Error(`no ${what} for ${chain}`);
    if (stopping) return;
    const lease = await keeper().acquire(options.leaseName(chain));
    if (!lease) return;
    try {
      await options.pass(chain, lease);
    } catch (error) {
      if (error instanceof LeadershipLostError) {
        keeper().lost(lease);
        logger.warn({ chain, epoch: lease.epoch.toString() }, `${what}: lost the lease mid-pass, standing by`);
        return;
      }
      throw error;
    }
  };

  const tick = (chain: ChainId): Promise<void> => {
    const previous = running.get(chain) ?? Promise.resolve();
    const next = previous.then(() => pass(chain));
    const tracked = next.catch(() => undefined);
    running.set(chain, tracked);
    void tracked.then(() => {
      if (running.get(chain) === tracked) running.delete(chain);
    });
    return next;
  };

  const loop = (chain: ChainId) => {
    if (stopping) return;
    const timer = setTimeout(() => {
      tick(chain)
        .catch((error: unknown) => logger.error({ chain, err: String(error) }, `${what} pass failed`))
        .finally(() => loop(chain));
    }, options.intervalMs);
    timers.set(chain, timer);
  };

  return {
    tick,
    start() {
      stopping = false;
      for (const chain of chains) if (!timers.has(chain)) loop(chain);
    },
    async stop() {
      stopping = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.all([...running.values()]);
      await ownKeeper?.stop();
      ownKeeper = undefined;
    },
  };
}
