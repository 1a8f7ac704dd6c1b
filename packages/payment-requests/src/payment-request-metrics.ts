import type { Queryable } from "@mp/db";
import { registerRowsPerValueGauge } from "@mp/providers";
import type { Registry } from "prom-client";
import { PAYMENT_REQUEST_STATUSES } from "./statuses.ts";

/**
 * `payment_requests{status}`: requests per stored status, read at every scrape (any process serving
 * /metrics shows it). Every status has a series, 0 included, so an alert on a rate never sees gaps.
 */
export function registerPaymentRequestMetrics(registry: Registry, db: Queryable): void {
  registerRowsPerValueGauge(registry, db, {
    name: "payment_requests",
    help: "Payment requests per status (open, processing, paid, underpaid, overpaid, expired, canceled)",
    table: "payment_requests",
    column: "status",
    values: PAYMENT_REQUEST_STATUSES,
  });
}
