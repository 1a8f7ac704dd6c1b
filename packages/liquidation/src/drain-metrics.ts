import type { Queryable } from "@mp/db";
import { Gauge, type Registry } from "prom-client";
import { DRAIN_STATES } from "./statuses.ts";

/** `liquidation_drains{state}`: drains per state, read at every scrape; every state has a series, 0 included. */
export function registerLiquidationMetrics(registry: Registry, db: Queryable): void {
  if (registry.getSingleMetric("liquidation_drains")) return;
  new Gauge({
    name: "liquidation_drains",
    help: "Liquidation address drains per state (awaiting_funds, payment_submitted, payment_processed, failed, refunded, not_paid, canceled)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      const { rows } = await db.query<{ state: string; count: string }>(
        "SELECT state, count(*) AS count FROM liquidation_drains GROUP BY state",
      );
      const counts = new Map(rows.map((r) => [r.state, Number(r.count)]));
      for (const state of DRAIN_STATES) this.set({ state }, counts.get(state) ?? 0);
    },
  });
}
