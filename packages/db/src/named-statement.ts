import type pg from "pg";
import type { Database, Queryable } from "./database-contract.ts";

/**
 * A hot query run as a named prepared statement: the server parses and plans it once per connection.
 * The name must be unique in the process and always carry the same text.
 */
export interface NamedStatement {
  name: string;
  text: string;
}

type StatementRunner = (config: { name: string; text: string; values: unknown[] }) => Promise<pg.QueryResult>;

/** How each Database and each open transaction client runs a statement (set by database.ts). */
const runners = new WeakMap<object, StatementRunner>();

export function registerStatementRunner(target: Database | pg.PoolClient, run: StatementRunner): void {
  runners.set(target, run);
}

/**
 * The two ways to run SQL, and when to use which:
 * - `sql.query(text, params)`: everything else. One query, on its own connection (Database) or on
 *   the transaction's (tx client).
 * - `queryNamed(sql, STATEMENT, params)`: a short hot read or write issued on most requests. It is
 *   prepared once per connection on a real PostgreSQL server and run as plain text on the embedded
 *   PGlite, whose connections share one session and would collide on the name. Through the Database
 *   (the pool), the statements issued in the same turn of the event loop go out together on one
 *   connection and one socket write (batched-queries.ts): a slow one would hold up the others, so
 *   keep long queries out. In a transaction client it runs on that client, in order.
 */
export function queryNamed<R extends pg.QueryResultRow>(
  sql: Queryable | Database,
  statement: NamedStatement,
  params: unknown[],
): Promise<pg.QueryResult<R>> {
  const run = runners.get(sql);
  const config = { name: statement.name, text: statement.text, values: params };
  // A client this package did not hand out: its session is unknown, so no name.
  if (!run) return sql.query<R>(config.text, config.values);
  return run(config) as Promise<pg.QueryResult<R>>;
}
