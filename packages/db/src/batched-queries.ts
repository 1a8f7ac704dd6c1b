import type pg from "pg";
import { type BatchedQueryConfig, batchedQuery } from "./batched-query.ts";
import { isConnectionError } from "./sql-state.ts";

interface PendingQuery {
  config: BatchedQueryConfig;
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
export function createQueryBatcher(pool: pg.Pool): (config: BatchedQueryConfig) => Promise<pg.QueryResult> {
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
    let outstanding = batch.length;
    let broken = false;
    // Each query's first answer only: pg may report an error after a read timeout has answered, or
    // after throwing while it took the query.
    const settle = (query: PendingQuery) => {
      let answered = false;
      return (error: Error | null, result?: pg.QueryResult) => {
        if (answered) return;
        answered = true;
        if (error) {
          // A query's own error (bad input, a constraint) leaves the connection usable; a lost one does not.
          if (isConnectionError(error)) broken = true;
          query.reject(error);
        } else {
          query.resolve(result as pg.QueryResult);
        }
        outstanding -= 1;
        if (outstanding === 0) client.release(broken);
      };
    };
    // pg corks and uncorks around each query; the outer cork holds every query to one write.
    stream?.cork?.();
    for (const query of batch) {
      const answer = settle(query);
      try {
        client.query(batchedQuery(query.config, answer));
      } catch (error) {
        // pg reports a client that cannot take queries through the query's callback; should it
        // throw instead, the query still gets its answer and the client goes back when all have.
        answer(error as Error);
      }
    }
    stream?.uncork?.();
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
