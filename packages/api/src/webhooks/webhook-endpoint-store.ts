import { randomUUID } from "node:crypto";
import { iso, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { issueSigningSecret, type QueuedDelivery } from "@mp/webhooks";
import type { z } from "zod";
import { defineGetQuery, defineListQuery } from "../shared/list-page.ts";
import { type RowOf, resourceTable } from "../shared/resource-row.ts";
import type {
  deliveryAttemptResource,
  queuedDeliveryResource,
  updateWebhookEndpointBody,
  WebhookEndpointResource,
} from "./webhook-endpoint-schemas.ts";

type EndpointRow = RowOf<WebhookEndpointResource, "disabled_at" | "failing_since" | "created_at" | "updated_at">;

const ENDPOINTS = resourceTable<EndpointRow>({
  from: "webhook_endpoints",
  columns:
    "id, url, description, enabled_events, status, disabled_reason, disabled_at, failing_since, created_at, updated_at",
});
const COLUMNS = ENDPOINTS.columns;
const toResource = ENDPOINTS.toResource;
const findEndpoint = defineGetQuery(ENDPOINTS);
const lockEndpoint = defineGetQuery({ ...ENDPOINTS, lock: "FOR UPDATE" });

export function toQueuedDelivery(row: QueuedDelivery): z.infer<typeof queuedDeliveryResource> {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status as z.infer<typeof queuedDeliveryResource>["status"],
    next_attempt_at: iso(row.next_attempt_at),
    created_at: iso(row.created_at),
  };
}

/** Creates the endpoint and its first signing secret; the secret is returned here only. */
export async function insertWebhookEndpoint(
  sql: Queryable,
  keyring: EncryptionKeyring,
  input: { merchantId: string; url: string; enabledEvents: string[]; description: string | null },
): Promise<WebhookEndpointResource & { secret: string }> {
  const { rows } = await sql.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, merchant_id, url, description, enabled_events)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [randomUUID(), input.merchantId, input.url, input.description, [...new Set(input.enabledEvents)]],
  );
  const row = rows[0];
  if (!row) throw new Error("webhook endpoint not stored");
  const secret = await issueSigningSecret(sql, keyring, row.id, { rotate: false });
  return { ...toResource(row), secret };
}

/** The merchant's endpoint, locked for the caller's change when `forUpdate`; another merchant's is 404. */
export async function findWebhookEndpoint(
  sql: Queryable,
  merchantId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookEndpointResource> {
  const endpoint = await (options.forUpdate ? lockEndpoint : findEndpoint)(sql, merchantId, id);
  if (!endpoint) throw new NotFoundError("Webhook endpoint");
  return endpoint;
}

/** This merchant's endpoints, newest first. */
export const listWebhookEndpoints = defineListQuery(ENDPOINTS, "merchant_id");

/**
 * Applies a PATCH. Disabling (the merchant's own, `manual`) cancels what is pending: a disabled
 * endpoint receives nothing, and `payments webhooks replay` or a redeliver sends it later. Enabling
 * clears the reason and the failing run, so the 5-day rule starts afresh.
 */
export async function updateWebhookEndpoint(
  sql: Queryable,
  merchantId: string,
  id: string,
  patch: z.infer<typeof updateWebhookEndpointBody>,
): Promise<WebhookEndpointResource> {
  const current = await findWebhookEndpoint(sql, merchantId, id, { forUpdate: true });
  const disabling = patch.status === "disabled" && current.status === "enabled";
  const enabling = patch.status === "enabled" && current.status === "disabled";
  const { rows } = await sql.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET url = COALESCE($3, url),
            enabled_events = COALESCE($4, enabled_events),
            description = CASE WHEN $5 THEN $6 ELSE description END,
            status = CASE WHEN $7 THEN 'disabled' WHEN $8 THEN 'enabled' ELSE status END,
            disabled_reason = CASE WHEN $7 THEN 'manual' WHEN $8 THEN NULL ELSE disabled_reason END,
            disabled_at = CASE WHEN $7 THEN now() WHEN $8 THEN NULL ELSE disabled_at END,
            failing_since = CASE WHEN $8 THEN NULL ELSE failing_since END,
            updated_at = now()
      WHERE merchant_id = $1 AND id = $2
      RETURNING ${COLUMNS}`,
    [
      merchantId,
      id,
      patch.url ?? null,
      patch.enabled_events ? [...new Set(patch.enabled_events)] : null,
      patch.description !== undefined,
      patch.description ?? null,
      disabling,
      enabling,
    ],
  );
  if (disabling) {
    await sql.query(
      `UPDATE webhook_deliveries SET status = 'canceled', completed_at = now(), last_error = 'endpoint disabled'
        WHERE endpoint_id = $1 AND status = 'pending'`,
      [id],
    );
  }
  const row = rows[0];
  if (!row) throw new NotFoundError("Webhook endpoint");
  return toResource(row);
}

/** Deletes the endpoint with its secrets, deliveries and their attempts. */
export async function deleteWebhookEndpoint(sql: Queryable, merchantId: string, id: string): Promise<void> {
  const { rowCount } = await sql.query("DELETE FROM webhook_endpoints WHERE merchant_id = $1 AND id = $2", [
    merchantId,
    id,
  ]);
  if (!rowCount) throw new NotFoundError("Webhook endpoint");
}

type DeliveryAttemptResource = z.infer<typeof deliveryAttemptResource>;

const ATTEMPTS = resourceTable<RowOf<DeliveryAttemptResource, "attempted_at">>({
  from: "webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id",
  columns: `a.id, a.delivery_id, d.event_id, d.event_type, a.attempt, a.attempted_at, a.status_code, a.latency_ms,
            a.error, a.response_body, a.succeeded`,
  orderBy: "a.attempted_at DESC, a.id DESC",
});

/** Every attempt made to the endpoint, newest first. */
export const listDeliveryAttempts = defineListQuery(ATTEMPTS, "a.endpoint_id");
