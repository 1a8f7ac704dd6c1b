import type { Queryable } from "@mp/db";

/** Merchants are promised at least this many days of events; EVENT_RETENTION_DAYS may only raise it. */
export const MIN_EVENT_RETENTION_DAYS = 30;

/** Rows deleted per statement: a backlog is pruned in short transactions, never one long lock. */
const BATCH = 5_000;

/**
 * Deletes events older than the retention period (days, at least MIN_EVENT_RETENTION_DAYS), in
 * batches. Only age decides: rows that refer to an event (webhook deliveries) are expected
 * to go with it (ON DELETE CASCADE), and no delivery is still retried 30 days after its event.
 * Returns how many were deleted.
 */
export async function pruneEvents(sql: Queryable, retentionDays: number): Promise<number> {
  if (!Number.isInteger(retentionDays) || retentionDays < MIN_EVENT_RETENTION_DAYS) {
    throw new RangeError(`event retention must be a whole number of days, at least ${MIN_EVENT_RETENTION_DAYS}`);
  }
  let deleted = 0;
  for (;;) {
    const result = await sql.query(
      // Merchant by merchant through events_merchant_created (there is no index on created_at
      // alone: 0371): the old end of each merchant's range, at most a batch in all. Which rows go
      // first does not matter, every row past retention goes before the loop ends.
      `DELETE FROM events WHERE id IN (
         SELECT old.id FROM merchants m
          CROSS JOIN LATERAL (
            SELECT e.id FROM events e
             WHERE e.merchant_id = m.id AND e.created_at < now() - make_interval(days => $1::int) LIMIT $2
          ) old
          LIMIT $2
       )`,
      [retentionDays, BATCH],
    );
    const count = result.rowCount ?? 0;
    deleted += count;
    if (count < BATCH) return deleted;
  }
}
