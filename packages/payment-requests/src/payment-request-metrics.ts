import type { Queryable } from "@mp/db";
import { Gauge, type Registry } from "prom-client";
import { PAYMENT_REQUEST_STATUSES } from "./statuses.ts";

/**
 * `payment_requests{status}`: requests per stored status, read at every scrape (any process serving
 * /metrics shows it). Every status has a series, 0 included, so an alert on a rate never sees gaps.
 */
export function registerPaymentRequestMetrics(registry: Registry, db: Queryable): void {
  if (registry.getSingleMetric("payment_requests")) return;
  new Gauge({
    name: "payment_requests",
    help: "Payment requests per status (open, processing, paid, underpaid, overpaid, expired, canceled)",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      const { rows } = await db.query<{ status: string; count: string }>(
        "SELECT status, count(*) AS count FROM payment_requests GROUP BY status",
      );
      const counts = new Map(rows.map((r) => [r.status, Number(r.count)]));
      for (const status of PAYMENT_REQUEST_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
}
