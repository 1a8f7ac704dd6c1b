import type { Queryable } from "./database-contract.ts";

/**
 * The row an `INSERT ... RETURNING` answers. An INSERT that returns no row is a bug in its SQL (a
 * conflict the caller should have handled), never a client error: it throws a plain Error.
 */
export async function insertReturning<Row extends object>(
  sql: Queryable,
  text: string,
  params: unknown[],
): Promise<Row> {
  const row = (await sql.query<Row>(text, params)).rows[0];
  if (!row) throw new Error("INSERT returned no row");
  return row;
}
