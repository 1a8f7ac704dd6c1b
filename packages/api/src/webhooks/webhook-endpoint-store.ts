import { randomUUID } from "node:crypto";
import { NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { issueSigningSecret, type QueuedDelivery } from "@mp/webhooks";
import type { z } from "zod";
import type { Page } from "../http/envelope.ts";
import type { Pagination } from "../http/pagination.ts";
import { listPage } from "../shared/list-page.ts";
import { iso, SqlFilters } from "../shared/sql-filters.ts";
import type {
  deliveryAttemptResource,
  queuedDeliveryResource,
  updateWebhookEndpointBody,
  WebhookEndpointResource,
} from "./webhook-endpoint-schemas.ts";

interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  enabled_events: string[];
  status: WebhookEndpointResource["status"];
  disabled_reason: WebhookEndpointResource["disabled_reason"];
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  "id, url, description, enabled_events, status, disabled_reason, disabled_at, failing_since, created_at, updated_at";

const isoOrNull = (value: Date | null) => (value ? iso(value) : null);

function toResource(row: EndpointRow): WebhookEndpointResource {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    enabled_events: row.enabled_events,
    status: row.status,
    disabled_reason: row.disabled_reason,
    disabled_at: isoOrNull(row.disabled_at),
    failing_since: isoOrNull(row.failing_since),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

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
  const { rows } = await sql.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE merchant_id = $1 AND id = $2${options.forUpdate ? " FOR UPDATE" : ""}`,
    [merchantId, id],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError("Webhook endpoint");
  return toResource(row);
}

export function listWebhookEndpoints(
  sql: Queryable,
  merchantId: string,
  page: Pagination,
): Promise<Page<WebhookEndpointResource>> {
  return listPage<EndpointRow, WebhookEndpointResource>(
    sql,
    {
      from: "webhook_endpoints",
      columns: COLUMNS,
      where: new SqlFilters().add("merchant_id = $?", merchantId),
      toItems: (rows) => rows.map(toResource),
    },
    page,
  );
}

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

interface AttemptRow {
  id: string;
  delivery_id: string;
  event_id: string | null;
  event_type: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
  succeeded: boolean;
}

/** Every attempt made to the endpoint, newest first. */
export function listDeliveryAttempts(
  sql: Queryable,
  endpointId: string,
  page: Pagination,
): Promise<Page<z.infer<typeof deliveryAttemptResource>>> {
  return listPage<AttemptRow, z.infer<typeof deliveryAttemptResource>>(
    sql,
    {
      from: "webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id",
      columns: `a.id, a.delivery_id, d.event_id, d.event_type, a.attempt, a.attempted_at, a.status_code, a.latency_ms,
                a.error, a.response_body, a.succeeded`,
      where: new SqlFilters().add("a.endpoint_id = $?", endpointId),
      orderBy: "a.attempted_at DESC, a.id DESC",
      toItems: (rows) =>
        rows.map((row) => ({
          id: row.id,
          delivery_id: row.delivery_id,
          event_id: row.event_id,
          event_type: row.event_type,
          attempt: row.attempt,
          attempted_at: iso(row.attempted_at),
          status_code: row.status_code,
          latency_ms: row.latency_ms,
          error: row.error,
          response_body: row.response_body,
          succeeded: row.succeeded,
        })),
    },
    page,
  );
}
