/**
 * Delays before each retry after a failed attempt: about three days in all, then the delivery fails.
 * Attempt 1 goes out at once; attempt n+1 waits RETRY_DELAYS_MS[n-1] (jittered) after attempt n fails.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];

/** Spread of each delay (±), so the retries of many deliveries failed together do not return together. */
const JITTER = 0.1;

/** Longest wait a Retry-After may ask for (beyond it, the schedule's own largest step). */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * When to try again after failed attempt `attempts` (1-based), or undefined when attempts are used
 * up. A 429's Retry-After is honoured: never sooner than it asks (capped at 24 h).
 */
export function nextRetryDelayMs(
  attempts: number,
  schedule: readonly number[],
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Retry-After as seconds or an HTTP date (RFC 9110 10.2.3), in ms from `now`; undefined when unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
