import { type Queryable, recordAudit } from "@mp/db";

/**
 * `count` audit rows of one `action` by `cli:ops`, oldest first: row i is about merchant object
 * `${prefix}-${i}` and names `merchantOf(i)` in its details (the log's merchant filter).
 */
export async function recordAuditRows(
  db: Queryable,
  rows: { count: number; action: string; prefix: string; merchantOf: (i: number) => string },
): Promise<void> {
  for (let i = 0; i < rows.count; i++) {
    await recordAudit(db, {
      actor: "cli:ops",
      action: rows.action,
      objectType: "merchant",
      objectId: `${rows.prefix}-${i}`,
      details: { merchant_id: rows.merchantOf(i) },
    });
  }
}
