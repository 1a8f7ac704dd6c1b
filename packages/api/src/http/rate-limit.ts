import { AppError } from "@mp/core";
import type { Response } from "express";

const WINDOW_MS = 60_000;

/** What a limit counts by: the API key (authenticated routes) or the client address (public routes). */
type RateLimitScope = "per-key" | "per-client";

const REFUSAL: Record<RateLimitScope, string> = {
  "per-key": "Too many requests for this API key; retry later",
  "per-client": "Too many requests from this address; retry later",
};

/**
 * A fixed one-minute window counted in process memory, per bucket: the key id (never the raw key)
 * after authentication, or the client address on the few public routes that do real work. Over the
 * limit it throws `rate_limited` (429 in the envelope form); every answer carries the IETF draft
 * `RateLimit-Policy` / `RateLimit` headers, and a 429 `Retry-After`.
 *
 * The budget is per process, on purpose: with N API replicas behind a load balancer a key can make
 * up to N x the limit a minute (docs/several-machines.md: set budget / N). A count
 * shared in PostgreSQL would add a write, contended on one row per busy key, to every request,
 * reads included, where authentication today costs one indexed lookup.
 *
 * A map and a counter rather than express-rate-limit: that library's per-request work (async store,
 * debug arguments evaluated, proxy address parsing) was a measured 4% of an authenticated read.
 */
function fixedWindowRateLimit(limitPerMinute: number, scope: RateLimitScope): (bucket: string, res: Response) => void {
  let windowStart = Date.now();
  let hits = new Map<string, number>();
  const policy = `"${scope}";q=${limitPerMinute};w=${WINDOW_MS / 1000}`;

  return (bucket, res) => {
    const now = Date.now();
    if (now - windowStart >= WINDOW_MS) {
      // A new window for every bucket at once: the map never holds more than one minute of them.
      windowStart = now - ((now - windowStart) % WINDOW_MS);
      hits = new Map();
    }
    const count = (hits.get(bucket) ?? 0) + 1;
    hits.set(bucket, count);
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    res.setHeader("RateLimit-Policy", policy);
    res.setHeader("RateLimit", `"${scope}";r=${Math.max(0, limitPerMinute - count)};t=${resetSeconds}`);
    if (count > limitPerMinute) {
      res.setHeader("Retry-After", String(resetSeconds));
      throw new AppError("rate_limited", REFUSAL[scope]);
    }
  };
}

/** Per API key, checked after authentication: the key id is the bucket. */
export function perKeyRateLimit(limitPerMinute: number): (keyId: string, res: Response) => void {
  return fixedWindowRateLimit(limitPerMinute, "per-key");
}

/**
 * Per client address, for the public routes that do real work (a query, a provider call): the
 * address is the TCP peer's (Express's `req.ip`; behind a proxy, the proxy's).
 */
export function perClientRateLimit(limitPerMinute: number): (clientAddress: string, res: Response) => void {
  return fixedWindowRateLimit(limitPerMinute, "per-client");
}
