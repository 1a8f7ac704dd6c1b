import { ServiceUnavailableError } from "@mp/core";

/**
 * Why no rate could be given. `unreachable`: the node or API did not answer; `bad_response`: it
 * answered something that is not a price (wrong shape, an error body, a feed whose decimals differ
 * from the configured ones); `no_source`: no feed or pair is configured for the asset; `stale`: the
 * newest answer is older than its heartbeat allows; `invalid_answer`: answer <= 0, an incomplete or
 * carried-over round, a timestamp in the future; `out_of_bounds`: outside the operator's min/max;
 * `disagreement`: combined sources too far apart; `too_few_sources`: fewer fresh answers than the
 * combining rule needs.
 */
export type RateUnavailableReason =
  | "unreachable"
  | "bad_response"
  | "no_source"
  | "stale"
  | "invalid_answer"
  | "out_of_bounds"
  | "disagreement"
  | "too_few_sources";

/**
 * No trustworthy rate for `asset` now. A ServiceUnavailableError (503, retryable), never a
 * ValidationError: the request was fine, the market data is not, so the caller waits and retries
 * (a deposit stays pending) instead of valuing anything at a wrong rate.
 */
export class RateUnavailableError extends ServiceUnavailableError {
  readonly reason: RateUnavailableReason;
  readonly asset: string;

  constructor(asset: string, reason: RateUnavailableReason, message: string, options: { cause?: unknown } = {}) {
    super(`No usable USD rate for ${asset} (${reason}): ${message}`, { ...options, details: { asset, reason } });
    this.reason = reason;
    this.asset = asset;
  }
}
