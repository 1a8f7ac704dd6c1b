/**
 * How far ahead of its requests an endpoint may be claimed for. Waiting rows are meant to start within
 * this long at the endpoint's own pace; a request in flight for longer shows the pace is gone, and the
 * rows waiting beyond the base depth are given back (delivery-lanes.ts `shed`).
 */
export const AHEAD_HORIZON_MS = 1_000;

/** The most one endpoint may hold claimed, as a multiple of its sending cap (also at most half the process's slots). */
export const MAX_DEPTH_PER_SENDING = 8;

export interface DepthLimits {
  /** Requests in flight at once to one endpoint. */
  perEndpoint: number;
  /** The most one endpoint may hold claimed, however fast it answers. */
  maxDepth: number;
}

/** The limits of a worker sending `concurrency` at once in all and `perEndpoint` to one endpoint. */
export function depthLimits(concurrency: number, perEndpoint: number): DepthLimits {
  const base = 2 * perEndpoint;
  return {
    perEndpoint,
    maxDepth: Math.max(base, Math.min(MAX_DEPTH_PER_SENDING * perEndpoint, Math.floor(concurrency / 2))),
  };
}

/**
 * Deliveries one endpoint may hold claimed (sending and waiting). Unknown or slow: twice its sending
 * cap, as before adaptive depth, so a hanging endpoint holds no more than that. Answering fast (mean
 * `meanMs` per request): as many more as it sends within AHEAD_HORIZON_MS, up to `maxDepth`, so a
 * backlogged fast endpoint is refilled by a few large claims rather than a claim per few requests
 * (a claim's round trip, not the requests, was what bounded one endpoint's drain).
 */
export function claimDepth(limits: DepthLimits, meanMs: number | undefined): number {
  const base = 2 * limits.perEndpoint;
  if (meanMs === undefined) return base;
  const ahead = Math.floor((limits.perEndpoint * AHEAD_HORIZON_MS) / Math.max(meanMs, 1));
  return Math.max(base, Math.min(limits.maxDepth, limits.perEndpoint + ahead));
}

/** An endpoint is claimed for once this many of its depth are free: claims of at least this many. */
export function minClaimOf(limits: DepthLimits, depth: number): number {
  return Math.max(1, Math.floor((depth - limits.perEndpoint) / 2));
}

/** What one endpoint holds claimed and may hold now: what the claim reads per endpoint. */
export interface LanePlan {
  /** Claimed and not finished (sending or waiting). */
  claimed: number;
  /** The most it may hold claimed now (claimDepth). */
  depth: number;
  /** It is claimed for only once this many of its depth are free. */
  minClaim: number;
}
