import type { Queryable } from "@mp/db";
import type { ReconcileReport } from "./reconcile-chains.ts";

/** Keeps each line of a run as its chain and asset's latest result (migrations/0147). */
export async function recordReconcileReport(q: Queryable, report: ReconcileReport): Promise<void> {
  for (const line of report.lines) {
    await q.query(
      `INSERT INTO reconcile_results (chain, asset, status, difference, explanation, checked_at)
       VALUES ($1, $2, $3, $4::numeric, $5, now())
       ON CONFLICT (chain, asset) DO UPDATE SET status = EXCLUDED.status, difference = EXCLUDED.difference,
         explanation = EXCLUDED.explanation, checked_at = EXCLUDED.checked_at`,
      [line.chain, line.asset, line.status, line.difference, line.explanation],
    );
  }
}

/** Per chain and status, how many assets the latest runs found so, and when the chain was last checked. */
export async function countReconcileResults(
  q: Queryable,
): Promise<Array<{ chain: string; status: string; count: number; checkedAt: Date }>> {
  const result = await q.query<{ chain: string; status: string; count: number; checked_at: Date }>(
    `SELECT chain, status, count(*)::int AS count, max(checked_at) AS checked_at
       FROM reconcile_results GROUP BY chain, status ORDER BY chain, status`,
  );
  return result.rows.map((r) => ({ chain: r.chain, status: r.status, count: r.count, checkedAt: r.checked_at }));
}
