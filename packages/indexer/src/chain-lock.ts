import { type ChainId, type Logger, ServiceUnavailableError } from "@mp/core";
import type { Database } from "@mp/db";
import type pg from "pg";

/** First key of the two-key advisory lock space: the indexers' namespace (migrations use another). */
const INDEXER_LOCK_NAMESPACE = 7_245_021;

/**
 * Taken only when nobody holds the lock. pg_try_advisory_lock alone would do on a real server, but
 * the embedded PGlite is one session shared by every connection, where the lock is re-entrant: the
 * pg_locks check makes a second indexer wait there too. (Embedded caveat: a session never ends, so
 * an indexer that dies without stop() keeps the lock until the process restarts.)
 */
const TRY_LOCK = `SELECT CASE WHEN EXISTS (
    SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = $1::int::oid
       AND objid = hashtext($2)::oid AND objsubid = 2
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
  THEN false ELSE pg_try_advisory_lock($1, hashtext($2)) END AS locked`;

/**
 * The session advisory lock that makes one indexer per chain work at a time. It lives on a
 * dedicated pooled connection held for as long as the lock is: if that connection dies (process
 * killed, network gone), the server ends the session and the lock is free for the next indexer.
 */
export interface ChainLock {
  /** True when this indexer holds the lock (checking its connection is still alive), after trying to take it. */
  acquire(): Promise<boolean>;
  /** Unlocks and returns the connection; idempotent. */
  release(): Promise<void>;
}

export function createChainLock(db: Database, chain: ChainId, logger: Logger): ChainLock {
  const key = `indexer:${chain}`;
  let client: pg.PoolClient | undefined;
  let lost = false;
  const onError = () => {
    lost = true;
  };

  /** Back to the pool; `destroy` closes the connection, which ends the session and with it the lock. */
  const giveBack = (held: pg.PoolClient, destroy: boolean) => {
    held.off("error", onError);
    held.release(destroy);
  };

  const connect = async (): Promise<pg.PoolClient> => {
    try {
      const fresh = await db.pool.connect();
      lost = false;
      fresh.on("error", onError);
      return fresh;
    } catch (error) {
      throw new ServiceUnavailableError("Database unavailable", { cause: error });
    }
  };

  return {
    async acquire() {
      if (client) {
        const held = client;
        if (!lost) {
          try {
            await held.query("SELECT 1");
            return true;
          } catch {
            // Fall through: the session is gone, so is the lock.
          }
        }
        logger.warn({ chain }, "indexer lock connection lost");
        client = undefined;
        giveBack(held, true);
      }
      const fresh = await connect();
      try {
        const { rows } = await fresh.query<{ locked: boolean }>(TRY_LOCK, [INDEXER_LOCK_NAMESPACE, key]);
        if (rows[0]?.locked === true) {
          client = fresh;
          logger.info({ chain }, "indexer lock acquired");
          return true;
        }
        giveBack(fresh, false);
        return false;
      } catch (error) {
        giveBack(fresh, true);
        throw new ServiceUnavailableError("Database unavailable", { cause: error });
      }
    },
    async release() {
      const held = client;
      if (!held) return;
      client = undefined;
      try {
        await held.query("SELECT pg_advisory_unlock($1, hashtext($2))", [INDEXER_LOCK_NAMESPACE, key]);
        giveBack(held, false);
      } catch {
        giveBack(held, true);
      }
      logger.info({ chain }, "indexer lock released");
    },
  };
}
