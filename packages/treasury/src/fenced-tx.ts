import { assertLeader, type Database, type Lease, type Queryable } from "@mp/db";

/** A transaction that writes only while its caller still holds its lease. */
export type FencedTx = <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T>;

/**
 * Transactions fenced by `lease`: assertLeader runs first in each, so a deposed leader (the send
 * pipeline's `sender:<CHAIN>`, the sweeper's `sweeper:<CHAIN>`) writes nothing.
 */
export function fencedTx(db: Database, lease: Lease, fence: { idleTimeoutMs: number }): FencedTx {
  return (fn) =>
    db.tx(async (tx) => {
      await assertLeader(tx, lease, fence);
      return fn(tx);
    });
}
