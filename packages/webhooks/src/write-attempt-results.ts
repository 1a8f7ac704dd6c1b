import { randomUUID } from "node:crypto";
import type { Logger } from "@mp/core";
import { type Database, type NamedStatement, queryNamed } from "@mp/db";
import type pg from "pg";
import type { AttemptResult } from "./attempt-result.ts";

interface DisabledEndpoint {
  id: string;
  merchant_id: string;
  disabled_reason: string;
}

/** Which endpoints a batch shows answering, failing (and not answering in the same batch), or gone. */
function endpointVerdicts(attempts: AttemptResult[]) {
  const succeeded = [
    ...new Set(
      attempts.filter((r) => r.outcome.statusCode !== undefined && r.status === "succeeded").map((r) => r.endpointId),
    ),
  ].sort();
  const failed = [...new Set(attempts.filter((r) => r.status !== "succeeded").map((r) => r.endpointId))]
    .filter((id) => !succeeded.includes(id))
    .sort();
  const gone = [...new Set(attempts.filter((r) => r.gone).map((r) => r.endpointId))].sort();
  return { succeeded, failed, gone };
}

/**
 * One statement for a batch (atomic without BEGIN/COMMIT, one round trip): the deliveries' new states,
 * fenced by the attempt count (only the claim that counted an attempt writes its result), the
 * attempts made, and the endpoints' `failing_since` (cleared by a success, set by a first failure;
 * the two sets are disjoint). The batch is one JSON parameter: one native JSON.stringify instead of
 * sixteen arrays escaped element by element in JavaScript by the driver. Named: planned once per
 * connection, not at every batch (planning this statement cost as much as writing a few results).
 */
const WRITE_RESULTS: NamedStatement = {
  name: "webhook_write_results",
  text: `
WITH r AS (
  SELECT * FROM json_to_recordset($1::json) AS r (
    id uuid, delivery uuid, endpoint uuid, attempt int, at timestamptz, code int, ms int, error text, body text,
    status text, next timestamptz, skipped boolean)
), delivered AS (
  UPDATE webhook_deliveries d
     SET status = r.status, next_attempt_at = COALESCE(r.next, d.next_attempt_at), claimed_until = NULL,
         last_status_code = r.code, last_error = r.error,
         completed_at = CASE WHEN r.status = 'pending' THEN NULL ELSE now() END
    FROM r
   WHERE d.id = r.delivery AND d.attempts = r.attempt
     -- A delivery canceled while in flight (its endpoint disabled) that the receiver took is delivered:
     -- left canceled, a replay would send it again.
     AND (d.status = 'pending' OR (d.status = 'canceled' AND r.status = 'succeeded'))
), attempted AS (
  INSERT INTO webhook_delivery_attempts
         (id, delivery_id, endpoint_id, attempt, attempted_at, status_code, latency_ms, error, response_body, succeeded)
  SELECT r.id, r.delivery, r.endpoint, r.attempt, r.at, r.code, r.ms, r.error, r.body, r.status = 'succeeded'
    FROM r
   WHERE NOT r.skipped
), answering AS (
  UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ANY ($2::uuid[]) AND failing_since IS NOT NULL
), failing AS (
  UPDATE webhook_endpoints SET failing_since = $4 WHERE id = ANY ($3::uuid[]) AND failing_since IS NULL
)
SELECT 1`,
};

function writeResults(
  sql: Database | pg.PoolClient,
  batch: AttemptResult[],
  verdicts: { succeeded: string[]; failed: string[] },
  firstFailure: Date | null,
): Promise<unknown> {
  const rows = batch.map((r) => ({
    id: r.skipped ? null : randomUUID(),
    delivery: r.deliveryId,
    endpoint: r.endpointId,
    attempt: r.attempt,
    at: r.attemptedAt,
    code: r.outcome.statusCode ?? null,
    ms: r.outcome.latencyMs,
    error: r.outcome.error ?? null,
    body: r.outcome.responseBody ?? null,
    status: r.status,
    next: r.nextAttemptAt,
    skipped: r.skipped,
  }));
  return queryNamed(sql, WRITE_RESULTS, [JSON.stringify(rows), verdicts.succeeded, verdicts.failed, firstFailure]);
}

/** Disables the gone endpoints and those failing for `failingAfterMs`, canceling their pending deliveries. */
async function disableEndpoints(
  c: pg.PoolClient,
  gone: string[],
  failed: string[],
  failingAfterMs: number,
): Promise<DisabledEndpoint[]> {
  const { rows } = await c.query<DisabledEndpoint>(
    `WITH disabled AS (
       UPDATE webhook_endpoints
          SET status = 'disabled', disabled_at = now(), updated_at = now(),
              disabled_reason = CASE WHEN id = ANY($1::uuid[]) THEN 'gone' ELSE 'failing' END
        WHERE status = 'enabled'
          AND (id = ANY($1::uuid[]) OR (id = ANY($2::uuid[]) AND failing_since <= now() - make_interval(secs => $3)))
       RETURNING id, merchant_id, disabled_reason
     ), canceled AS (
       UPDATE webhook_deliveries SET status = 'canceled', completed_at = now(), last_error = 'endpoint disabled'
        WHERE endpoint_id IN (SELECT id FROM disabled) AND status = 'pending'
     )
     SELECT * FROM disabled`,
    [gone, failed, failingAfterMs / 1000],
  );
  return rows;
}

/**
 * Writes a batch of results: one statement (writeResults) when no endpoint can be disabled by it,
 * else that statement and the disabling in one transaction (410 Gone, or failing for `failingAfterMs`).
 */
export async function writeAttemptResults(
  db: Database,
  logger: Logger,
  batch: AttemptResult[],
  failingAfterMs: number,
): Promise<void> {
  const attempts = batch.filter((r) => !r.skipped);
  const { succeeded, failed, gone } = endpointVerdicts(attempts);
  const firstFailure = failed.length > 0 ? earliest(attempts.filter((r) => failed.includes(r.endpointId))) : null;
  if (failed.length === 0 && gone.length === 0) {
    await writeResults(db, batch, { succeeded, failed }, firstFailure);
    return;
  }
  const disabled = await db.tx(async (c) => {
    // Issued together (one round trip); the disabling reads the failing_since the first one set.
    const written = writeResults(c, batch, { succeeded, failed }, firstFailure);
    const [, disabledRows] = await Promise.all([written, disableEndpoints(c, gone, failed, failingAfterMs)]);
    return disabledRows;
  });
  for (const endpoint of disabled) {
    // Flagged for the operator and the merchant (status disabled, disabled_reason in the API).
    logger.warn(
      { endpointId: endpoint.id, merchantId: endpoint.merchant_id, reason: endpoint.disabled_reason },
      "webhook endpoint disabled",
    );
  }
}

function earliest(results: AttemptResult[]): Date {
  return new Date(Math.min(...results.map((r) => r.attemptedAt.getTime())));
}
