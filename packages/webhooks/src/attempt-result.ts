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
  const { status, nextAttemptAt, gone } = nextState(row, outcome, skipped, schedule);
  // One literal of one shape: spreading a shared base into each case cost ~3 us a call, per delivery.
  return {
    deliveryId: row.id,
    endpointId: row.endpoint_id,
    attempt: row.attempts,
    attemptedAt,
    outcome,
    status,
    nextAttemptAt,
    gone,
    skipped,
  };
}

function nextState(
  row: ClaimedDelivery,
  outcome: PostOutcome,
  skipped: boolean,
  schedule: readonly number[],
): Pick<AttemptResult, "status" | "nextAttemptAt" | "gone"> {
  const code = outcome.statusCode;
  if (skipped) return CANCELED;
  if (code !== undefined && code >= 200 && code < 300) return SUCCEEDED;
  if (code === 410) return GONE;
  const retryAfter = code === 429 ? parseRetryAfter(outcome.retryAfter) : undefined;
  const delay = nextRetryDelayMs(row.attempts, schedule, retryAfter);
  if (delay === undefined) return FAILED;
  return { status: "pending", nextAttemptAt: new Date(Date.now() + delay), gone: false };
}

const CANCELED = { status: "canceled", nextAttemptAt: null, gone: false } as const;
const SUCCEEDED = { status: "succeeded", nextAttemptAt: null, gone: false } as const;
const GONE = { status: "failed", nextAttemptAt: null, gone: true } as const;
const FAILED = { status: "failed", nextAttemptAt: null, gone: false } as const;
