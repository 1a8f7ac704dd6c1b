import type { Database, NamedStatement, Queryable } from "@mp/db";

function isDatabase(sql: Queryable | Database): sql is Database {
  return "tx" in sql && "pool" in sql;
}

/**
 * Runs a hot query as a named prepared statement when it goes through the pool (parsed and planned
 * once per connection, see Database.query), and as a plain query inside a transaction.
 */
export function queryPrepared<R extends object>(
  sql: Queryable | Database,
  statement: NamedStatement,
  params: unknown[],
): Promise<{ rows: R[]; rowCount: number | null }> {
  return isDatabase(sql) ? sql.query<R>(statement, params) : sql.query<R>(statement.text, params);
}
