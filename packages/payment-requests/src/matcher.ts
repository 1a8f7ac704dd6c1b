import { type IntervalPasses, type Logger, startIntervalPasses } from "@mp/core";
import type { Database } from "@mp/db";
import { matchPaymentRequest } from "./match-payments.ts";
import type { PresentSettings } from "./request-resource.ts";

/** Requests looked at per pass and kind: a backlog drains over a few passes, never one long transaction. */
const BATCH = 100;

export interface MatchPass {
  /** Requests whose deposits changed, brought up to date. */
  matched: number;
  /** Requests that reached their expiry with nothing pending. */
  expired: number;
  /** Requests whose update failed (logged; retried at the next pass). */
  failed: number;
}

/**
 * One pass: every request a deposit change marked (payment_request_changes, written by the deposits
 * triggers in the indexer's transactions) and every open or underpaid request past its expiry, each
 * matched in its own transaction (matchPaymentRequest). One that fails is logged and left for the
 * next pass (its change rows stay), never holding up another merchant's.
 */
export async function matchPaymentRequestsOnce(
  db: Database,
  settings: PresentSettings,
  options: { logger?: Logger | undefined; now?: () => Date } = {},
): Promise<MatchPass> {
  const now = options.now ?? (() => new Date());
  const changed = await db.query<{ request_id: string }>(
    "SELECT request_id FROM payment_request_changes GROUP BY request_id ORDER BY min(id) LIMIT $1",
    [BATCH],
  );
  const due = await db.query<{ id: string }>(
    `SELECT id FROM payment_requests WHERE status IN ('open', 'underpaid') AND expires_at <= $2
      ORDER BY expires_at LIMIT $1`,
    [BATCH, now()],
  );
  const pass: MatchPass = { matched: 0, expired: 0, failed: 0 };
  const run = async (id: string, kind: "matched" | "expired") => {
    try {
      const moved = await db.tx((sql) => matchPaymentRequest(sql, id, settings, now()));
      if (moved) pass[kind] += 1;
    } catch (error) {
      pass.failed += 1;
      options.logger?.warn({ err: String(error), paymentRequestId: id }, "payment request not matched; retried");
    }
  };
  for (const { request_id } of changed.rows) await run(request_id, "matched");
  for (const { id } of due.rows) await run(id, "expired");
  return pass;
}

/**
 * Runs matchPaymentRequestsOnce every `intervalMs` (default 250 ms: a page polling its status sees a
 * confirmed deposit well within a second) until stopped; passes never overlap.
 */
export function startPaymentRequestMatcher(options: {
  db: Database;
  logger: Logger;
  settings: PresentSettings;
  intervalMs?: number;
}): IntervalPasses {
  const { db, logger, settings } = options;
  return startIntervalPasses({
    pass: () => matchPaymentRequestsOnce(db, settings, { logger }),
    intervalMs: options.intervalMs ?? 250,
    logger,
    didWork: (done) => done.matched + done.expired + done.failed > 0,
    worked: "payment requests matched",
    failed: "payment request matching failed; retried next tick",
  });
}
