import type pg from "pg";
import type { Queryable } from "./database.ts";

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
 * Runs `statement` in a transaction client: named (parsed and planned once per connection) on a real
 * server, as plain text on the embedded database, whose connections share one session and would
 * collide on the name.
 */
export function queryNamedInTransaction<R extends pg.QueryResultRow>(
  client: Queryable,
  statement: NamedStatement,
  params: unknown[],
): Promise<pg.QueryResult<R>> {
  const runner = client as unknown as StatementRunner;
  return sessionClients.has(client)
    ? runner.query<R>({ name: statement.name, text: statement.text, values: params })
    : runner.query<R>({ text: statement.text, values: params });
}
