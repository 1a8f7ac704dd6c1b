import type { ChainId, Logger } from "@mp/core";
import { assertLeader, createLeaseKeeper, type Database, type Lease, type LeaseKeeper, type Queryable } from "@mp/db";

/** One indexer's lease on its chain: who leads, and the fence every write goes behind. */
export interface ChainLeadership {
  readonly seconds: number;
  /** Asks the keeper whether this indexer leads the chain now (logs a change); the lease or null. */
  acquire(): Promise<Lease | null>;
  /** The guard refused a write: this lease is gone, stand by. */
  lost(lease: Lease): void;
  leading(): boolean;
  /** The fencing guard of every write (leases.ts), in the caller's transaction. */
  fence(q: Queryable): Promise<void>;
  /** `fn` in one transaction, behind the guard. */
  fenced<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Gives the chain's lease up (a standby takes it at its next poll) and stops the own keeper. */
  handOver(): Promise<void>;
}

export interface ChainLeadershipOptions {
  db: Database;
  chain: ChainId;
  logger: Logger;
  /** The process's shared keeper; without one the indexer keeps its own on `lockDb` (default `db`). */
  leases?: LeaseKeeper | undefined;
  lockDb?: Database | undefined;
  leaseSeconds?: number | undefined;
}

export function createChainLeadership(options: ChainLeadershipOptions): ChainLeadership {
  const { db, chain, logger } = options;
  const leaseName = `indexer:${chain}`;
  const seconds = options.leases?.seconds ?? options.leaseSeconds ?? 10;
  /** The keeper this indexer made for itself (no shared one given): stopped with the indexer. */
  let ownKeeper: LeaseKeeper | undefined;
  const keeper = (): LeaseKeeper => {
    if (options.leases) return options.leases;
    ownKeeper ??= createLeaseKeeper({ db: options.lockDb ?? db, role: "indexer", seconds, logger });
    return ownKeeper;
  };
  /** The lease this indexer leads under, while it does. */
  let leading: Lease | undefined;
  // A writer that stops answering inside its transaction has its session ended by the server after
  // half the bound, so it cannot keep a standby out with the lease row's share lock.
  const fence = (q: Queryable): Promise<void> => {
    if (!leading) throw new Error(`the ${chain} indexer writes without leading`);
    return assertLeader(q, leading, { idleTimeoutMs: seconds * 500 });
  };
  return {
    seconds,
    async acquire() {
      const lease = await keeper().acquire(leaseName);
      if (lease?.epoch !== leading?.epoch) {
        if (lease) logger.info({ chain, epoch: lease.epoch.toString() }, "leading the chain");
        else logger.warn({ chain }, "no longer leading the chain: standing by");
      }
      leading = lease ?? undefined;
      return lease;
    },
    lost(lease) {
      keeper().lost(lease);
      leading = undefined;
    },
    leading: () => leading !== undefined,
    fence,
    fenced: (fn) =>
      db.tx(async (client) => {
        await fence(client);
        return fn(client);
      }),
    async handOver() {
      leading = undefined;
      const own = ownKeeper;
      ownKeeper = undefined;
      if (options.leases) await options.leases.unwant(leaseName);
      if (own) await own.stop();
    },
  };
}
