import { randomUUID } from "node:crypto";
import type { Logger } from "@mp/core";
import type { Database } from "@mp/db";
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

function insertAttempts(c: pg.PoolClient, attempts: AttemptResult[]): Promise<unknown> {
  return c.query(
    `INSERT INTO webhook_delivery_attempts
       (id, delivery_id, endpoint_id, attempt, attempted_at, status_code, latency_ms, error, response_body, succeeded)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::timestamptz[], $6::int[], $7::int[],
                          $8::text[], $9::text[], $10::boolean[])`,
    [
      attempts.map(() => randomUUID()),
      attempts.map((r) => r.deliveryId),
      attempts.map((r) => r.endpointId),
      attempts.map((r) => r.attempt),
      attempts.map((r) => r.attemptedAt),
      attempts.map((r) => r.outcome.statusCode ?? null),
      attempts.map((r) => r.outcome.latencyMs),
      attempts.map((r) => r.outcome.error ?? null),
      attempts.map((r) => r.outcome.responseBody ?? null),
      attempts.map((r) => r.status === "succeeded"),
    ],
  );
}

/** Fenced by the attempt count: only the claim that counted an attempt writes its result. */
function updateDeliveries(c: pg.PoolClient, batch: AttemptResult[]): Promise<unknown> {
  return c.query(
    `UPDATE webhook_deliveries d
        SET status = u.status, next_attempt_at = COALESCE(u.next_attempt_at, d.next_attempt_at), claimed_until = NULL,
            last_status_code = u.status_code, last_error = u.error,
            completed_at = CASE WHEN u.status = 'pending' THEN NULL ELSE now() END
       FROM unnest($1::uuid[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[])
            AS u (id, attempts, status, next_attempt_at, status_code, error)
      WHERE d.id = u.id AND d.attempts = u.attempts AND d.status = 'pending'`,
    [
      batch.map((r) => r.deliveryId),
      batch.map((r) => r.attempt),
      batch.map((r) => r.status),
      batch.map((r) => r.nextAttemptAt),
      batch.map((r) => r.outcome.statusCode ?? null),
      batch.map((r) => r.outcome.error ?? null),
    ],
  );
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
 * Writes a batch of results in one transaction, its statements issued together: the attempts, the
 * deliveries' new states, the endpoints' `failing_since` (cleared by a success, set by a first
 * failure) and the endpoints disabled (410 Gone, or failing for `failingAfterMs`).
 */
export async function writeAttemptResults(
  db: Database,
  logger: Logger,
  batch: AttemptResult[],
  failingAfterMs: number,
): Promise<void> {
  const attempts = batch.filter((r) => !r.skipped);
  const { succeeded, failed, gone } = endpointVerdicts(attempts);
  const disabled = await db.tx(async (c) => {
    const pending: Array<Promise<unknown>> = [];
    if (attempts.length > 0) pending.push(insertAttempts(c, attempts));
    pending.push(updateDeliveries(c, batch));
    if (succeeded.length > 0) {
      pending.push(
        c.query(
          "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ANY($1::uuid[]) AND failing_since IS NOT NULL",
          [succeeded],
        ),
      );
    }
    if (failed.length > 0) {
      pending.push(
        c.query(
          "UPDATE webhook_endpoints SET failing_since = $2 WHERE id = ANY($1::uuid[]) AND failing_since IS NULL",
          [failed, earliest(attempts.filter((r) => failed.includes(r.endpointId)))],
        ),
      );
    }
    const disabling =
      failed.length > 0 || gone.length > 0 ? disableEndpoints(c, gone, failed, failingAfterMs) : Promise.resolve([]);
    const [disabledRows] = await Promise.all([disabling, ...pending]);
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
