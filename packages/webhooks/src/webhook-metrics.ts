import type { Queryable } from "@mp/db";
import { Gauge, type Registry } from "prom-client";

/**
 * The webhook deliveries' gauges, read from the database at every scrape (any API process shows
 * them, wherever the delivery workers run): pending deliveries through their partial index, and
 * the small endpoints table; never a scan of the deliveries' history.
 */
const GAUGES: Array<{ name: string; help: string; sql: string }> = [
  {
    name: "webhook_deliveries_pending",
    help: "Webhook deliveries not yet succeeded or given up",
    sql: "SELECT count(*)::float8 AS value FROM webhook_deliveries WHERE status = 'pending'",
  },
  {
    name: "webhook_oldest_pending_delivery_age_seconds",
    help: "How long the oldest due webhook delivery has waited (0 when none is due)",
    sql: `SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 AS value
            FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()`,
  },
  {
    name: "webhook_endpoints_failing",
    help: "Enabled webhook endpoints whose latest attempts failed (5 days of it disables them)",
    sql: "SELECT count(*)::float8 AS value FROM webhook_endpoints WHERE status = 'enabled' AND failing_since IS NOT NULL",
  },
  {
    name: "webhook_endpoints_disabled_failing",
    help: "Webhook endpoints disabled after failing for 5 days",
    sql: "SELECT count(*)::float8 AS value FROM webhook_endpoints WHERE disabled_reason = 'failing'",
  },
];

export function registerWebhookMetrics(registry: Registry, db: Queryable): void {
  if (registry.getSingleMetric("webhook_deliveries_pending")) return;
  for (const { name, help, sql } of GAUGES) {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const value = (await db.query<{ value: number | null }>(sql)).rows[0]?.value ?? null;
        this.reset();
        if (value !== null) this.set(value);
      },
    });
  }
}
