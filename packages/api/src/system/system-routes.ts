import { ServiceUnavailableError } from "@mp/core";
import { z } from "zod";
import { defineRoute } from "../http/route.ts";
import { checkMetricsToken } from "./metrics-token.ts";

const startedAt = Date.now();

const healthResource = z.object({ status: z.enum(["ok"]), uptime_seconds: z.number().int() });
const readinessResource = z.object({
  status: z.enum(["ready", "not_ready"]),
  checks: z.object({ database: z.enum(["ok", "unavailable"]) }),
});

export const healthRoute = defineRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  summary: "Process health (does not touch the database)",
  tag: "System",
  auth: false,
  response: healthResource,
  successStatus: 200,
  async handler() {
    return { status: 200, data: { status: "ok", uptime_seconds: Math.floor((Date.now() - startedAt) / 1000) } };
  },
});

const READY_TIMEOUT_MS = 2_000;

/** 200 when the database answers within 2 s, else 503 with the same body type (spec 4). */
export const readyRoute = defineRoute({
  method: "get",
  path: "/ready",
  operationId: "getReadiness",
  summary: "Database readiness: 200 when ready, 503 when not (same body type)",
  tag: "System",
  auth: false,
  response: readinessResource,
  successStatus: 200,
  errorStatuses: [503],
  async handler({ deps }) {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ServiceUnavailableError("database probe timed out")), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([deps.db.query("SELECT 1"), timeout]);
      return { status: 200, data: { status: "ready", checks: { database: "ok" } } };
    } catch {
      return {
        status: 503,
        data: { status: "not_ready", checks: { database: "unavailable" } },
        raw: {
          contentType: "application/json",
          body: JSON.stringify({
            data: { status: "not_ready", checks: { database: "unavailable" } },
            error: "service_unavailable",
            message: "Database unavailable",
            status: "error",
          }),
        },
      };
    } finally {
      clearTimeout(timer);
    }
  },
});

export const metricsRoute = defineRoute({
  method: "get",
  path: "/metrics",
  operationId: "getMetrics",
  summary: "Prometheus metrics (text exposition format); `Authorization: Bearer <METRICS_TOKEN>`",
  tag: "System",
  auth: false,
  response: z.string(),
  successStatus: 200,
  errorStatuses: [401],
  async handler({ req, res, deps }) {
    checkMetricsToken(req, res, deps);
    return {
      status: 200,
      data: null,
      raw: { contentType: deps.metrics.contentType, body: await deps.metrics.metrics() },
    };
  },
});

export const systemRoutes = [healthRoute, readyRoute, metricsRoute];
