import type { AppDeps } from "@mp/api";
import type { Queryable } from "@mp/db";
import { EVENT_TYPES } from "@mp/events";
import { type Request, type Response, Router } from "express";
import { type AuditOf, v1Route, visibleMerchant } from "./v1-route.ts";

/** Days the webhooks page's success rate covers. */
export const HEALTH_DAYS = 7;

/**
 * Each endpoint's health: attempts and successes over the last HEALTH_DAYS days, its last failed
 * attempt, and when the next retry of a delivery that already failed is due (pending ones waiting).
 */
export async function endpointHealth(sql: Queryable, merchantId: string) {
  const result = await sql.query<{
    endpoint_id: string;
    attempts: string;
    succeeded: string;
    last_error_at: Date | null;
    last_error_status: number | null;
    last_error: string | null;
    next_retry_at: Date | null;
    pending: string;
  }>(
    `SELECT e.id AS endpoint_id,
       (SELECT count(*) FROM webhook_delivery_attempts a
         WHERE a.endpoint_id = e.id AND a.attempted_at > now() - make_interval(days => $2)) AS attempts,
       (SELECT count(*) FROM webhook_delivery_attempts a
         WHERE a.endpoint_id = e.id AND a.attempted_at > now() - make_interval(days => $2) AND a.succeeded) AS succeeded,
       f.attempted_at AS last_error_at, f.status_code AS last_error_status, f.error AS last_error,
       (SELECT min(d.next_attempt_at) FROM webhook_deliveries d
         WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.attempts > 0) AS next_retry_at,
       (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending') AS pending
     FROM webhook_endpoints e
     LEFT JOIN LATERAL (
       SELECT attempted_at, status_code, error FROM webhook_delivery_attempts a
       WHERE a.endpoint_id = e.id AND NOT a.succeeded ORDER BY attempted_at DESC, id DESC LIMIT 1
     ) f ON true
     WHERE e.merchant_id = $1`,
    [merchantId, HEALTH_DAYS],
  );
  return result.rows.map((row) => ({
    endpoint_id: row.endpoint_id,
    days: HEALTH_DAYS,
    attempts: Number(row.attempts),
    succeeded: Number(row.succeeded),
    last_error:
      row.last_error_at === null
        ? null
        : { at: row.last_error_at.toISOString(), status_code: row.last_error_status, error: row.last_error },
    next_retry_at: row.next_retry_at?.toISOString() ?? null,
    pending: Number(row.pending),
  }));
}

/**
 * What the webhooks page adds to the /v1 endpoint routes merchantPageRoutes mounts: each endpoint's
 * health, the event types to pick from, one event's payload, and secret rotation (audited).
 */
export function webhookPageRoutes(deps: AppDeps): Router {
  const router = Router();
  const endpointId: AuditOf = (a) => ({
    action: "webhook_endpoint.secret_rotated",
    objectType: "webhook_endpoint",
    objectId: String(a.params.webhook_endpoint_id),
  });
  router.use(
    v1Route(deps, "getEvent", "merchant:read"),
    v1Route(deps, "rotateWebhookEndpointSecret", "webhooks:write", endpointId),
  );
  router.get("/merchants/:merchantId/webhook-health", async (req: Request, res: Response) => {
    const { merchantId } = await visibleMerchant(deps.db, req, res, "merchant:read");
    res.json({ items: await endpointHealth(deps.db, merchantId) });
  });
  router.get("/merchants/:merchantId/event-types", async (req: Request, res: Response) => {
    await visibleMerchant(deps.db, req, res, "merchant:read");
    res.json({ items: [...EVENT_TYPES] });
  });
  return router;
}
