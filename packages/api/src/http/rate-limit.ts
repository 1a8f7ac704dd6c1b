import { AppError } from "@mp/core";
import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";

/**
 * Per-API-key limit (a fixed one-minute window, in process memory). Runs after authentication, so
 * the key id — never the raw key — is the bucket. Over the limit: 429 in the envelope form with
 * standard RateLimit headers.
 */
export function perKeyRateLimit(limitPerMinute: number): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: limitPerMinute,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    keyGenerator: (_req, res) => String(res.locals.merchant?.keyId ?? "anonymous"),
    handler: (_req, _res, next) =>
      next(new AppError("rate_limited", "Too many requests for this API key; retry later")),
  });
}
