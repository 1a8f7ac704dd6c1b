import type pg from "pg";
import type { Database } from "./database-contract.ts";
import { LIVENESS_LOCK_NAMESPACE } from "./leases.ts";

/**
 * A lease keeper's dedicated session, holding the holder's liveness lock (migrations/0082): kill -9
 * closes the socket and the server frees the lock at once. Reconnected after a loss.
 */
export interface KeeperSession {
  /** The session, (re)connected if it is missing or broken; `reconnected` tells a lost one was replaced. */
  open(): Promise<{ client: pg.PoolClient; fresh: boolean; reconnected: boolean }>;
  /** The session if it is usable now, without connecting. */
  current(): pg.PoolClient | undefined;
  /** The connection failed: the next `open` replaces it. */
  markBroken(): void;
  /** Ends the session: the heartbeat row removed and the lock given back when it can, else the socket closed. */
  close(cleanUp: (client: pg.PoolClient) => Promise<void>): Promise<void>;
}

export function createKeeperSession(db: Database, holder: string): KeeperSession {
  let client: pg.PoolClient | undefined;
  let broken = false;
  /** Sessions opened so far: a second one means the first was lost. */
  let sessions = 0;
  const onError = () => {
    broken = true;
  };
  const drop = () => {
    const c = client;
    client = undefined;
    if (!c) return;
    c.off("error", onError);
    c.release(true);
  };
  const connect = async (): Promise<pg.PoolClient> => {
    const fresh = await db.pool.connect();
    broken = false;
    fresh.on("error", onError);
    try {
      if (db.engine === "postgresql") {
        // A renewal waits behind this process's own guarded writes (they share-lock the row): a
        // short while at most; a longer wait fails and the next poll renews instead.
        await fresh.query("SET lock_timeout = '1s'");
      }
      await fresh.query("SELECT pg_try_advisory_lock($1, hashtext($2))", [LIVENESS_LOCK_NAMESPACE, holder]);
    } catch (error) {
      fresh.off("error", onError);
      fresh.release(true);
      throw error;
    }
    return fresh;
  };
  return {
    async open() {
      if (client && !broken) return { client, fresh: false, reconnected: false };
      drop();
      const fresh = await connect();
      const reconnected = sessions > 0;
      client = fresh;
      sessions++;
      return { client: fresh, fresh: true, reconnected };
    },
    current: () => (client && !broken ? client : undefined),
    markBroken() {
      broken = true;
    },
    async close(cleanUp) {
      const c = client;
      if (c && !broken) {
        try {
          await cleanUp(c);
          await c.query("SELECT pg_advisory_unlock($1, hashtext($2))", [LIVENESS_LOCK_NAMESPACE, holder]);
          client = undefined;
          c.off("error", onError);
          c.release();
          return;
        } catch {
          // Closing the connection below ends the session and with it the lock.
        }
      }
      drop();
    },
  };
}
