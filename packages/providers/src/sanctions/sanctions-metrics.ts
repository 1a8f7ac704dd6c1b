import type { Queryable } from "@mp/db";
import { Gauge, type Registry } from "prom-client";
import { SANCTIONS_MATCH_CONTEXTS } from "./sanctions-matches.ts";

/**
 * `payments_sanctions_matches{context}`: matches recorded since the start of the database, read
 * from `sanctions_matches` at every scrape, so the process serving /metrics counts the indexer's
 * matches too. Every context has a series, 0 included; an alert fires on its increase.
 */
export function registerSanctionsMetrics(registry: Registry, db: Queryable): void {
  if (registry.getSingleMetric("payments_sanctions_matches")) return;
  new Gauge({
    name: "payments_sanctions_matches",
    help: "Sanctions list matches recorded (deposit senders held; quote, payout and treasury send destinations refused), by context",
    labelNames: ["context"],
    registers: [registry],
    async collect() {
      const { rows } = await db.query<{ context: string; count: string }>(
        "SELECT context, count(*) AS count FROM sanctions_matches GROUP BY context",
      );
      const counts = new Map(rows.map((r) => [r.context, Number(r.count)]));
      for (const context of SANCTIONS_MATCH_CONTEXTS) this.set({ context }, counts.get(context) ?? 0);
    },
  });
}
