import { createHash, timingSafeEqual } from "node:crypto";
import { UnauthorizedError } from "@mp/core";
import type { Request, Response } from "express";
import type { AppDeps } from "../deps.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/**
 * `GET /metrics` takes `Authorization: Bearer <METRICS_TOKEN>`. The digests are compared in constant
 * time (equal lengths whatever was sent), so the answer's timing tells nothing about the token.
 * Without a configured token only a sandbox serves it; production never does (its start also
 * refuses a missing token).
 */
export function checkMetricsToken(
  req: Request,
  res: Response,
  deps: Pick<AppDeps, "environment" | "metricsToken">,
): void {
  const expected = deps.metricsToken;
  if (expected === undefined && deps.environment === "sandbox") return;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get("authorization") ?? "");
  if (expected === undefined || !match?.[1] || !timingSafeEqual(sha256(match[1]), sha256(expected))) {
    res.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
    throw new UnauthorizedError("Missing or invalid metrics token");
  }
}
