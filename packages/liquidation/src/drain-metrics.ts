import type { Queryable } from "@mp/db";
import { registerRowsPerValueGauge } from "@mp/providers";
import type { Registry } from "prom-client";
import { DRAIN_STATES } from "./statuses.ts";

/** `liquidation_drains{state}`: drains per state, read at every scrape; every state has a series, 0 included. */
export function registerLiquidationMetrics(registry: Registry, db: Queryable): void {
  registerRowsPerValueGauge(registry, db, {
    name: "liquidation_drains",
    help: "Liquidation address drains per state (awaiting_funds, payment_submitted, payment_processed, failed, refunded, not_paid, canceled)",
    table: "liquidation_drains",
    column: "state",
    values: DRAIN_STATES,
  });
}
