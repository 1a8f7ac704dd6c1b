import type { Logger } from "@mp/core";
import { AppError, ServiceUnavailableError } from "@mp/core";
import pg from "pg";
import { createQueryBatcher } from "./batched-queries.ts";
import { markSessionClient, type NamedStatement } from "./named-statement.ts";
import { isConnectionError } from "./sql-state.ts";

// numeric and int8 come back as strings (pg's default); we parse them into bigint where they hold money.
/** Anything that runs a query: the pool-backed Database or a client inside an open transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface Database {
  readonly pool: pg.Pool;
  /** Connection string other processes and pools (pg-boss, the CLI) can use for the same database. */
  readonly connectionString: string;
  /**
   * A NamedStatement is prepared once per connection on a real server. On the embedded database all
   * connections share one session, so the same name from two connections would collide: there it runs
   * as a plain query. NamedStatements are meant for short hot reads: those issued in the same turn of
   * the event loop share one connection and one round trip (batched-queries.ts), so a slow one would
   * hold up the others.
   */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string | NamedStatement,
    params?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /**
   * Runs `fn` in one transaction on one connection: COMMIT when it resolves, ROLLBACK when it throws.
   * The callback must use the client it is given, never the pool.
   *
   * Connections run in pg's pipeline mode: a query is written as soon as it is issued, without waiting
   * for the previous answer. BEGIN goes out with the callback's first statement, and a statement the
   * callback issues without awaiting goes out with COMMIT (when it fails, PostgreSQL turns that COMMIT
   * into a rollback and tx throws). Each query keeps its own result and error.
   */
  tx<T>(
    fn: (client: pg.PoolClient) => Promise<T>,
    options?: { isolation?: "read committed" | "serializable" },
  ): Promise<T>;
  close(): Promise<void>;
}

export interface CreateDatabaseOptions {
  connectionString: string;
  max?: number;
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
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // Queries issued back to back share a round trip (see Database.tx).
    pipeline: true,
  });
  // An idle client losing its server must not crash the process; the next checkout reconnects.
  pool.on("error", (error) => options.logger?.warn({ err: error.message }, "database connection lost"));

  const wrap = (error: unknown): never => {
    if (isConnectionError(error)) {
      throw new ServiceUnavailableError("Database unavailable", { cause: error });
    }
    throw error;
  };

  // Named statements need one session per connection. PGlite serves all connections from one session,
  // so it is asked once (plain queries until it has answered).
  let sessionPerConnection: boolean | undefined;
  let probe: Promise<void> | undefined;
  const namedStatementsAllowed = async (): Promise<boolean> => {
    if (sessionPerConnection !== undefined) return sessionPerConnection;
    probe ??= pool
      .query<{ version: string }>("SELECT version() AS version")
      .then(({ rows }) => {
        sessionPerConnection = !/PGlite/i.test(rows[0]?.version ?? "PGlite");
      })
      .catch(() => {
        probe = undefined;
      });
    await probe;
    return sessionPerConnection === true;
  };

  // Hot statements issued in the same turn of the event loop share one connection and one write.
  const batched = createQueryBatcher(pool);

  const db: Database = {
    pool,
    connectionString: options.connectionString,
    async query(text, params) {
      try {
        if (typeof text === "string") return await pool.query(text, params);
        const named = await namedStatementsAllowed();
        return await batched(
          named
            ? { name: text.name, text: text.text, values: params ?? [] }
            : { text: text.text, values: params ?? [] },
        );
      } catch (error) {
        return wrap(error);
      }
    },
    async tx(fn, txOptions) {
      // Asked before a connection is held, so the one-time probe never waits on this transaction.
      const named = await namedStatementsAllowed();
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        return wrap(error);
      }
      if (named) markSessionClient(client);
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
  return db;
}
