import type { Logger } from "@mp/core";
import { AppError, ServiceUnavailableError } from "@mp/core";
import pg from "pg";
import { createQueryBatcher } from "./batched-queries.ts";
import type { Database, DatabaseEngine } from "./database-contract.ts";
import { registerStatementRunner } from "./named-statement.ts";
import { isConnectionError } from "./sql-state.ts";

// numeric and int8 come back as strings (pg's default); we parse them into bigint where they hold money.
export interface CreateDatabaseOptions {
  connectionString: string;
  engine: DatabaseEngine;
  max?: number;
  /**
   * How long a query waits for a connection (a new one, or a free one of the pool) before the
   * database counts as unavailable (503). Default 5 s: a caller is answered rather than queued.
   */
  connectionTimeoutMs?: number;
  logger?: Logger;
  /** Called by close() after the pool ends (e.g. to stop an embedded server). */
  onClose?: () => Promise<void>;
}

/** COMMIT answered ROLLBACK: a statement of the transaction failed and nobody awaited it. */
export class TransactionRolledBackError extends AppError {
  constructor() {
    super("internal_error", "COMMIT rolled back: a statement of the transaction failed");
  }
}

export function createDatabase(options: CreateDatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    // Queries issued back to back share a round trip (see Database.tx).
    pipeline: true,
  });
  // An idle client losing its server must not crash the process; the next checkout reconnects.
  pool.on("error", (error) => options.logger?.warn({ err: error.message }, "database connection lost"));
  // pg-pool listens for a client's errors only while it is idle in the pool. A server restart ends
  // every session with a FATAL message, and one arriving while a client is checked out between two
  // statements (a transaction awaiting other I/O) was an 'error' event nobody listened to: it
  // crashed the process (found by test/e2e/postgres-restart.test.ts). The client's next statement
  // fails with a connection error, and whoever holds it releases it as broken.
  pool.on("connect", (client) => {
    client.on("error", (error) => options.logger?.warn({ err: error.message }, "database connection lost"));
  });

  const wrap = (error: unknown): never => {
    if (isConnectionError(error)) {
      throw new ServiceUnavailableError("Database unavailable", { cause: error });
    }
    throw error;
  };

  // Named statements need a session of their own per connection: a real server's.
  const named = options.engine === "postgresql";
  // Hot statements issued in the same turn of the event loop share one connection and one write.
  const batched = createQueryBatcher(pool);

  const db: Database = {
    pool,
    connectionString: options.connectionString,
    engine: options.engine,
    async query(text, params) {
      try {
        return await pool.query(text, params);
      } catch (error) {
        return wrap(error);
      }
    },
    async tx(fn, txOptions) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        return wrap(error);
      }
      registerStatementRunner(client, (config) =>
        client.query(named ? config : { text: config.text, values: config.values }),
      );
      let broken = false;
      // Not awaited before fn: BEGIN is written together with fn's first statement. BEGIN only fails
      // when the connection does, and then fn's statements fail too.
      const begin = client.query(
        txOptions?.isolation === "serializable" ? "BEGIN ISOLATION LEVEL SERIALIZABLE" : "BEGIN",
      );
      begin.catch(() => {});
      try {
        const result = await fn(client);
        await begin;
        const commit = await client.query("COMMIT");
        // COMMIT of a transaction in which a statement failed (one fn did not await) is a rollback.
        if (commit.command !== "COMMIT") throw new TransactionRolledBackError();
        return result;
      } catch (error) {
        try {
          await client.query("ROLLBACK");
        } catch {
          broken = true;
        }
        return wrap(error);
      } finally {
        client.release(broken);
      }
    },
    async close() {
      await pool.end();
      await options.onClose?.();
    },
  };
  registerStatementRunner(db, async (config) => {
    try {
      return await batched(named ? config : { text: config.text, values: config.values });
    } catch (error) {
      return wrap(error);
    }
  });
  return db;
}
