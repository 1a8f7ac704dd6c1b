import type pg from "pg";
import { isConnectionError } from "./sql-state.ts";

interface PendingQuery {
  config: pg.QueryConfig;
  resolve: (result: pg.QueryResult) => void;
  reject: (error: unknown) => void;
}

/** The parts of pg's Client this module reaches into: its socket, to send a batch in one write. */
interface ClientWithStream {
  connection?: { stream?: CorkableStream };
}

export interface CorkableStream {
  cork?: () => void;
  uncork?: () => void;
}

/**
 * The client's socket: `client.connection.stream`, a private part of pg (pg 8). Without it a batch
 * still runs, one write per query; packages/db/test/batched-queries.test.ts fails if a pg upgrade removes it.
 */
export function clientSocket(client: pg.PoolClient): CorkableStream | undefined {
  return (client as unknown as ClientWithStream).connection?.stream;
}

const MAX_BATCH = 32;

/**
 * Sends the standalone queries issued during one turn of the event loop together: one connection out
 * of the pool, every query written in one socket write (pg's pipeline mode keeps each query's result
 * and error its own), answers read back in as few reads as the server sends.
 *
 * Why: under load most of the API's CPU went into one loopback write and one read per query, on both
 * the Node and the PostgreSQL side. Requests arriving together now share those. A query waits at most
 * until the end of the current turn (setImmediate) before it is sent; a batch is cut at MAX_BATCH so
 * a burst still spreads over several connections (server processes) rather than queueing on one.
 */
export function createQueryBatcher(pool: pg.Pool): (config: pg.QueryConfig) => Promise<pg.QueryResult> {
  let pending: PendingQuery[] = [];
  let scheduled = false;

  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      for (const query of batch) query.reject(error);
      return;
    }
    const stream = clientSocket(client);
    // pg corks and uncorks around each query; the outer cork holds every query to one write.
    stream?.cork?.();
    const results = batch.map((query) => client.query(query.config));
    stream?.uncork?.();
    const settled = await Promise.allSettled(results);
    let broken = false;
    settled.forEach((outcome, i) => {
      const query = batch[i] as PendingQuery;
      if (outcome.status === "fulfilled") {
        query.resolve(outcome.value);
        return;
      }
      // A query's own error (bad input, a constraint) leaves the connection usable; a lost one does not.
      if (isConnectionError(outcome.reason)) broken = true;
      query.reject(outcome.reason);
    });
    client.release(broken);
  };

  return (config) =>
    new Promise<pg.QueryResult>((resolve, reject) => {
      pending.push({ config, resolve, reject });
      if (pending.length >= MAX_BATCH) {
        void flush();
      } else if (!scheduled) {
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          void flush();
        });
      }
    });
}
