import { type Database, type NamedStatement, type Queryable, queryNamedInTransaction } from "@mp/db";

function isDatabase(sql: Queryable | Database): sql is Database {
  return "tx" in sql && "pool" in sql;
}

/**
 * Runs a hot query as a named prepared statement (parsed and planned once per connection): through
 * the pool, where statements of one event-loop turn also share a round trip (Database.query), or in
 * the handler's transaction.
 */
export function queryPrepared<R extends object>(
  sql: Queryable | Database,
  statement: NamedStatement,
  params: unknown[],
): Promise<{ rows: R[]; rowCount: number | null }> {
  return isDatabase(sql)
    ? sql.query<R>(statement, params)
    : queryNamedInTransaction<R & Record<string, unknown>>(sql, statement, params);
}
