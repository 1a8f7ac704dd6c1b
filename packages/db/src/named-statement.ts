import type pg from "pg";
import type { Database, Queryable } from "./database.ts";

/**
 * A hot query run as a named prepared statement: the server parses and plans it once per connection.
 * The name must be unique in the process and always carry the same text.
 */
export interface NamedStatement {
  name: string;
  text: string;
}

/** Transaction clients whose connection is a session of its own (a real server), where names are safe. */
const sessionClients = new WeakSet<object>();

export function markSessionClient(client: pg.PoolClient): void {
  sessionClients.add(client);
}

interface StatementRunner {
  query<R extends pg.QueryResultRow>(config: pg.QueryConfig, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * Runs a hot statement wherever the caller stands. Through the Database (the pool): named, and
 * batched with the other named statements of the same event-loop turn (Database.query). In a
 * transaction client: named on a real server, plain text on the embedded database, whose connections
 * share one session and would collide on the name.
 */
export function queryNamed<R extends pg.QueryResultRow>(
  sql: Queryable | Database,
  statement: NamedStatement,
  params: unknown[],
): Promise<pg.QueryResult<R>> {
  if ("tx" in sql) return sql.query<R>(statement, params);
  const runner = sql as unknown as StatementRunner;
  return sessionClients.has(sql)
    ? runner.query<R>({ name: statement.name, text: statement.text, values: params })
    : runner.query<R>({ text: statement.text, values: params });
}
