import type { Logger } from "@mp/core";
import { createDatabase, createLeaseKeeper, type Database, type LeaseKeeper } from "@mp/db";

export interface SignerLeases {
  readonly keeper: LeaseKeeper;
  /** Hands every lease over and closes the keeper's pool: after the loops using it stopped. */
  stop(): Promise<void>;
}

/**
 * The signer's one lease keeper (role "signer") for the send pipeline and the sweepers, as the
 * indexers share one: started now and wanting every `sender:<CHAIN>` and `sweeper:<CHAIN>` it may
 * lead, so a standby signer (or `all`) process takes a killed leader's leases within the keeper's
 * poll. Each loop keeping its own, started lazily at its first pass, left a standby that had not
 * passed yet (a sweeper's first pass is SWEEP_INTERVAL_SECONDS after the start) waiting for the
 * lease's expiry instead, and pinned one connection per loop from the pool serving the writes.
 */
export async function startSignerLeases(options: {
  db: Database;
  logger: Logger;
  /** INDEXER_LEASE_SECONDS: the leadership bound, shared with the indexers. */
  seconds: number;
  names: readonly string[];
}): Promise<SignerLeases> {
  const { db, logger } = options;
  // The keeper pins one connection (its liveness lock, renewals): from a pool of its own, so it never
  // waits behind the pool that signs and records sends.
  const lockDb = createDatabase({ connectionString: db.connectionString, engine: db.engine, max: 2, logger });
  const keeper = createLeaseKeeper({ db: lockDb, role: "signer", seconds: options.seconds, logger });
  for (const name of options.names) keeper.want(name);
  const [first] = options.names;
  try {
    // The first poll: heartbeat, liveness lock, and the free leases taken.
    if (first !== undefined) await keeper.acquire(first);
  } catch (error) {
    await keeper.stop();
    await lockDb.close();
    throw error;
  }
  return {
    keeper,
    async stop() {
      await keeper.stop();
      await lockDb.close();
    },
  };
}
