import type { Queryable } from "@mp/db";

/** One queue's jobs by state, and how long its oldest waiting job has waited. */
export interface QueueStats {
  queue: string;
  /** pg-boss states: created, retry, active, completed, cancelled, failed. */
  counts: Record<string, number>;
  /** Age of the oldest job due to run and not started (created or retry), null when none waits. */
  oldestWaitingSeconds: number | null;
}

export interface FailedJob {
  id: string;
  queue: string;
  retryCount: number;
  createdAt: Date;
  failedAt: Date | null;
  /** pg-boss's record of the last error (its message), if any. */
  error: string | null;
}

/** Whether pg-boss created its schema here (the first process with a job queue does, at start). */
async function hasJobTable(q: Queryable): Promise<boolean> {
  const result = await q.query<{ present: boolean }>("SELECT to_regclass('pgboss.job') IS NOT NULL AS present");
  return result.rows[0]?.present === true;
}

/** Every queue's counts by state, read from pg-boss's table; empty before any job queue started. */
export async function readQueueStats(q: Queryable): Promise<QueueStats[]> {
  if (!(await hasJobTable(q))) return [];
  const result = await q.query<{ name: string; state: string; n: number; oldest_waiting: number | null }>(
    `SELECT name, state::text AS state, count(*)::int AS n,
            extract(epoch FROM now() - min(created_on) FILTER (
              WHERE state IN ('created', 'retry') AND start_after <= now()))::float8 AS oldest_waiting
       FROM pgboss.job GROUP BY name, state ORDER BY name, state`,
  );
  const byQueue = new Map<string, QueueStats>();
  for (const row of result.rows) {
    const stats = byQueue.get(row.name) ?? { queue: row.name, counts: {}, oldestWaitingSeconds: null };
    stats.counts[row.state] = row.n;
    if (row.oldest_waiting !== null) {
      const age = Math.max(0, Math.floor(row.oldest_waiting));
      stats.oldestWaitingSeconds = Math.max(stats.oldestWaitingSeconds ?? 0, age);
    }
    byQueue.set(row.name, stats);
  }
  return [...byQueue.values()];
}

/** The newest failed jobs (their retries spent), newest first. */
export async function listFailedJobs(q: Queryable, limit = 50): Promise<FailedJob[]> {
  if (!(await hasJobTable(q))) return [];
  const result = await q.query<{
    id: string;
    name: string;
    retry_count: number;
    created_on: Date;
    completed_on: Date | null;
    error: string | null;
  }>(
    `SELECT id, name, retry_count, created_on, completed_on,
            coalesce(output->>'message', output::text) AS error
       FROM pgboss.job WHERE state = 'failed' ORDER BY completed_on DESC NULLS LAST, created_on DESC LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({
    id: row.id,
    queue: row.name,
    retryCount: row.retry_count,
    createdAt: row.created_on,
    failedAt: row.completed_on,
    error: row.error,
  }));
}
