import type { Database, Queryable } from "@mp/db";

/** A hot query with a process-wide unique name (always the same text). */
export interface PreparedQuery {
  name: string;
  text: string;
}

function isDatabase(sql: Queryable | Database): sql is Database {
  return "tx" in sql && "pool" in sql;
}

/**
 * Runs a hot query as a named prepared statement when it goes through the pool (parsed and planned
 * once per connection, see Database.query), and as a plain query inside a transaction.
 */
export function queryPrepared<R extends object>(
  sql: Queryable | Database,
  statement: PreparedQuery,
  params: unknown[],
): Promise<{ rows: R[]; rowCount: number | null }> {
  return isDatabase(sql) ? sql.query<R>(statement, params) : sql.query<R>(statement.text, params);
}
