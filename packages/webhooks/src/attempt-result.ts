import type { ClaimedDelivery } from "./claimed-delivery.ts";
import type { PostOutcome } from "./post-webhook.ts";
import { nextRetryDelayMs, parseRetryAfter } from "./retry-schedule.ts";

/** What one attempt of a delivery came to, as written back (write-attempt-results.ts). */
export interface AttemptResult {
  deliveryId: string;
  endpointId: string;
  attempt: number;
  attemptedAt: Date;
  outcome: PostOutcome;
  status: "pending" | "succeeded" | "failed" | "canceled";
  nextAttemptAt: Date | null;
  /** Answered 410 Gone: the endpoint is disabled. */
  gone: boolean;
  /** No request was made (endpoint disabled meanwhile): no attempt row, no effect on the endpoint. */
  skipped: boolean;
}

/**
 * The delivery's next state from an attempt's outcome: 2xx succeeded, 410 failed and the endpoint
 * gone, anything else due again on the retry schedule (a 429's Retry-After honoured) until it ends.
 */
export function attemptResult(
  row: ClaimedDelivery,
  attemptedAt: Date,
  outcome: PostOutcome,
  skipped: boolean,
  schedule: readonly number[],
): AttemptResult {
  const base = {
    deliveryId: row.id,
    endpointId: row.endpoint_id,
    attempt: row.attempts,
    attemptedAt,
    outcome,
    skipped,
  };
  const code = outcome.statusCode;
  if (skipped) return { ...base, status: "canceled", nextAttemptAt: null, gone: false };
  if (code !== undefined && code >= 200 && code < 300)
    return { ...base, status: "succeeded", nextAttemptAt: null, gone: false };
  if (code === 410) return { ...base, status: "failed", nextAttemptAt: null, gone: true };
  const retryAfter = code === 429 ? parseRetryAfter(outcome.retryAfter) : undefined;
  const delay = nextRetryDelayMs(row.attempts, schedule, retryAfter);
  if (delay === undefined) return { ...base, status: "failed", nextAttemptAt: null, gone: false };
  return { ...base, status: "pending", nextAttemptAt: new Date(Date.now() + delay), gone: false };
}
