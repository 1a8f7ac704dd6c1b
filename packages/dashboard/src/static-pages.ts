import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@mp/core";
import { DASHBOARD_DIST_DIR } from "@mp/dashboard-web";
import express, { type RequestHandler, Router } from "express";

/**
 * The page's rules for the browser: scripts, styles and requests only from this origin, no framing
 * (clickjacking), no plugins; the built bundle needs nothing else.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
  });
  next();
};

/**
 * The built single-page app: hashed assets cached for a year, and index.html (no-cache) for every
 * other path under /dashboard, where the app's own router picks the page. Without a build (install
 * scripts skipped) every page is a 503 that says how to build it.
 */
export function staticPages(logger: Logger, distDir = DASHBOARD_DIST_DIR): Router {
  const router = Router();
  const indexFile = join(distDir, "index.html");
  if (!existsSync(indexFile)) {
    logger.warn({ distDir }, "dashboard not built: run `pnpm install` (or `pnpm --filter @mp/dashboard-web build`)");
    router.get("/{*rest}", (_req, res) => {
      res.status(503).type("text/plain").send("The dashboard is not built: run `pnpm install` in the checkout.\n");
    });
    return router;
  }
  const indexHtml = readFileSync(indexFile, "utf8");
  router.use(
    "/assets",
    express.static(join(distDir, "assets"), { immutable: true, maxAge: "365d", index: false, fallthrough: false }),
  );
  router.get("/{*rest}", (_req, res) => {
    res.set("Cache-Control", "no-cache").type("html").send(indexHtml);
  });
  return router;
}
