import type { Queryable } from "@mp/db";
import type { Registry } from "prom-client";
import { registerRowsPerValueGauge } from "../metrics/rows-per-value-gauge.ts";
import { SANCTIONS_MATCH_CONTEXTS } from "./sanctions-matches.ts";

/**
 * `payments_sanctions_matches{context}`: matches recorded since the start of the database, read
 * from `sanctions_matches` at every scrape, so the process serving /metrics counts the indexer's
 * matches too. Every context has a series, 0 included; an alert fires on its increase.
 */
export function registerSanctionsMetrics(registry: Registry, db: Queryable): void {
  registerRowsPerValueGauge(registry, db, {
    name: "payments_sanctions_matches",
    help: "Sanctions list matches recorded (deposit senders held; quote, payout and treasury send destinations refused), by context",
    table: "sanctions_matches",
    column: "context",
    values: SANCTIONS_MATCH_CONTEXTS,
  });
}
