import { ForbiddenError } from "@mp/core";
import type { RequestHandler } from "express";

/**
 * `/v1/sandbox/*` moves simulated money: a production deployment answers 403 to every such path,
 * whatever the key (none, unknown, sandbox or live) and whatever the body, before anything is read.
 * The routes' own check still refuses production keys in a sandbox deployment.
 */
export function sandboxRoutesGuard(environment: "sandbox" | "production"): RequestHandler {
  return (_req, _res, next) => {
    if (environment === "production") {
      next(new ForbiddenError("Sandbox routes are not available in a production deployment"));
      return;
    }
    next();
  };
}
