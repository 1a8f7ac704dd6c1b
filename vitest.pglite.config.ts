import { defineConfig } from "vitest/config";
import base from "./vitest.config.ts";

/**
 * The files CI runs a second time on the embedded default (PGlite, no DATABASE_URL) after the whole
 * suite ran on the PostgreSQL server: what can differ between the two engines, once each.
 * PGlite is PostgreSQL compiled to WASM (same parser, planner and SQL), so the rest of the suite's
 * SQL behaves alike; what is ours or differs is the embedded server (one connection served to the
 * `pg` driver by our wire server on a Unix socket, shared by every process of a DATA_DIR), the
 * migrations applied to it, and what one serialized connection does to locks, conflicts and
 * triggers.
 */
export const PGLITE_FILES = [
  // The wire server, the embedded socket and its lock, migrations, pipelined queries, leases.
  "packages/db/test/**/*.test.ts",
  // The ledger's SQL: journal, holds, held deposits, checks, CSV export.
  "packages/ledger/test/**/*.test.ts",
  // The events outbox (appended in the changing transaction) and the webhook fan-out trigger with
  // FOR UPDATE SKIP LOCKED claims.
  "packages/events/test/**/*.test.ts",
  "test/webhooks/webhook-delivery.test.ts",
  // Unique violations and row locks under concurrent requests: idempotency keys, transfers racing.
  "test/api/idempotency.test.ts",
  "test/api/transfers-concurrency.test.ts",
  // A payout refused inside the executor's transaction: its match must be written after it ends (a
  // second connection inside it waits forever on the one-transaction-at-a-time embedded server).
  "test/api/transfers-sanctioned-destination.test.ts",
  // SQLSTATE -> HTTP mapping (22P02, 23505 ...).
  "test/api/errors.test.ts",
  // The deposit path's writes: scan, record, confirm, credit, reorg roll-back.
  "test/indexer/indexer-reliability.test.ts",
  // Payment requests: the deposits triggers writing change rows in the indexer's transactions, the
  // matcher's row locks (two passes at once).
  "test/payment-requests/payment-requests-matching.test.ts",
  // Liquidation drains: the deposits trigger making drains, SKIP LOCKED claims by several workers at once.
  "test/liquidation/liquidation-bank-drains.test.ts",
  // The CLI and `serve` on the embedded default: the first process owns PGlite, the others join it.
  "test/cli/cli.test.ts",
];

// Not mergeConfig: it would add these to the base list instead of replacing it.
// No projects: every file here in its own module graph, as the embedded server is what they test.
export default defineConfig({ ...base, test: { ...base.test, include: PGLITE_FILES, projects: undefined } });
