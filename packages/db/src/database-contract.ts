import type pg from "pg";

/** Anything that runs a query: the pool-backed Database or a client inside an open transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * What serves the connection string. "postgresql": a real server, one session per connection.
 * "pglite": the embedded database, whose connections all share one session (see embedded.ts).
 * Known by whoever opened the database (a server URL, or PGlite it started or joined), never guessed.
 */
export type DatabaseEngine = "postgresql" | "pglite";

export interface Database {
  readonly pool: pg.Pool;
  /** Connection string other processes and pools (pg-boss, the CLI) can use for the same database. */
  readonly connectionString: string;
  readonly engine: DatabaseEngine;
  /** A plain query on a connection of the pool. Hot short reads go through queryNamed instead. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
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
