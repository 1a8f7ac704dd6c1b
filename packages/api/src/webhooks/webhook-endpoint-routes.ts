import { ConflictError, iso, NotFoundError, ValidationError } from "@mp/core";
import {
  checkWebhookUrl,
  enqueueTestDelivery,
  issueSigningSecret,
  redeliverEvent,
  WebhookUrlRefusedError,
} from "@mp/webhooks";
import type { AppDeps } from "../deps.ts";
import { defineIdempotentPost } from "../http/idempotent-routes.ts";
import { defineNestedListRoute, defineResourceReads } from "../http/read-routes.ts";
import { type AnyRoute, defineRoute } from "../http/route.ts";
import {
  createdWebhookEndpointResource,
  createWebhookEndpointBody,
  deletedWebhookEndpointResource,
  deliveryAttemptResource,
  eventIdParams,
  queuedDeliveryResource,
  redeliverEventBody,
  redeliveryResource,
  rotatedSecretResource,
  updateWebhookEndpointBody,
  webhookEndpointIdParams,
  webhookEndpointResource,
} from "./webhook-endpoint-schemas.ts";
import {
  deleteWebhookEndpoint,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listDeliveryAttempts,
  listWebhookEndpoints,
  toQueuedDelivery,
  updateWebhookEndpoint,
} from "./webhook-endpoint-store.ts";

const TAG = "Webhooks";

/** The address rules of the deployment (url-guard.ts), checked before any transaction (DNS is slow). */
async function checkUrl(deps: AppDeps, url: string | undefined): Promise<undefined> {
  if (url === undefined) return undefined;
  try {
    await checkWebhookUrl(url, deps.environment, deps.resolveWebhookHost);
  } catch (error) {
    if (error instanceof WebhookUrlRefusedError) throw new ValidationError(`url: ${error.message}`, "url");
    throw error;
  }
  return undefined;
}

export const createWebhookEndpointRoute = defineIdempotentPost({
  path: "/v1/webhook-endpoints",
  operationId: "createWebhookEndpoint",
  summary: "Register a webhook endpoint; its signing secret (whsec_...) is in this answer only",
  tag: TAG,
  secretInAnswer: true,
  body: createWebhookEndpointBody,
  response: createdWebhookEndpointResource,
  successStatus: 201,
  message: "Webhook endpoint created; store its secret now, it is not shown again",
  prepare: ({ deps, body }) => checkUrl(deps, body.url),
  perform: ({ merchant, body, sql, deps }) =>
    insertWebhookEndpoint(sql, deps.encryption, {
      merchantId: merchant.merchantId,
      url: body.url,
      enabledEvents: body.enabled_events,
      description: body.description ?? null,
    }),
});

export const [listWebhookEndpointsRoute, getWebhookEndpointRoute] = defineResourceReads({
  path: "/v1/webhook-endpoints",
  tag: TAG,
  item: webhookEndpointResource,
  params: webhookEndpointIdParams,
  // findWebhookEndpoint throws the 404 itself (its other callers need the row); notFound names the same.
  notFound: "Webhook endpoint",
  list: {
    operationId: "listWebhookEndpoints",
    summary: "List webhook endpoints, newest first",
    read: listWebhookEndpoints,
  },
  get: {
    operationId: "getWebhookEndpoint",
    summary: "Retrieve a webhook endpoint (never its secret)",
    read: findWebhookEndpoint,
  },
});

export const updateWebhookEndpointRoute = defineRoute({
  method: "patch",
  path: "/v1/webhook-endpoints/{webhook_endpoint_id}",
  operationId: "updateWebhookEndpoint",
  summary:
    "Change a webhook endpoint's url, event types, description or status (disabling cancels its pending deliveries)",
  tag: TAG,
  auth: true,
  params: webhookEndpointIdParams,
  body: updateWebhookEndpointBody,
  response: webhookEndpointResource,
  successStatus: 200,
  errorStatuses: [404],
  prepare: ({ deps, body }) => checkUrl(deps, body.url),
  async handler({ merchant, params, body, deps }) {
    const updated = await deps.db.tx((c) =>
      updateWebhookEndpoint(c, merchant.merchantId, params.webhook_endpoint_id, body),
    );
    return { status: 200, data: updated };
  },
});

export const deleteWebhookEndpointRoute = defineRoute({
  method: "delete",
  path: "/v1/webhook-endpoints/{webhook_endpoint_id}",
  operationId: "deleteWebhookEndpoint",
  summary: "Delete a webhook endpoint with its secrets and delivery history; nothing more is sent to it",
  tag: TAG,
  auth: true,
  params: webhookEndpointIdParams,
  response: deletedWebhookEndpointResource,
  successStatus: 200,
  errorStatuses: [404],
  async handler({ merchant, params, sql }) {
    await deleteWebhookEndpoint(sql, merchant.merchantId, params.webhook_endpoint_id);
    return { status: 200, data: { id: params.webhook_endpoint_id, deleted: true as const } };
  },
});

export const rotateWebhookSecretRoute = defineIdempotentPost({
  path: "/v1/webhook-endpoints/{webhook_endpoint_id}/rotate-secret",
  operationId: "rotateWebhookEndpointSecret",
  summary:
    "Issue a new signing secret (in this answer only); the previous one keeps signing for 24 h, so deliveries carry both signatures",
  tag: TAG,
  secretInAnswer: true,
  params: webhookEndpointIdParams,
  response: rotatedSecretResource,
  successStatus: 200,
  errorStatuses: [404],
  message: "Secret rotated; store the new secret now, it is not shown again",
  async perform({ merchant, params, sql, deps }) {
    const endpoint = await findWebhookEndpoint(sql, merchant.merchantId, params.webhook_endpoint_id, {
      forUpdate: true,
    });
    const secret = await issueSigningSecret(sql, deps.encryption, endpoint.id, { rotate: true });
    const { rows } = await sql.query<{ expires_at: Date }>(
      "SELECT expires_at FROM webhook_endpoint_secrets WHERE endpoint_id = $1 AND expires_at IS NOT NULL",
      [endpoint.id],
    );
    const expiresAt = rows[0]?.expires_at ?? new Date();
    return { id: endpoint.id, secret, previous_secret_expires_at: iso(expiresAt) };
  },
});

export const testWebhookEndpointRoute = defineIdempotentPost({
  path: "/v1/webhook-endpoints/{webhook_endpoint_id}/test",
  operationId: "testWebhookEndpoint",
  summary: "Send a signed test event (type webhook_endpoint.test) to the endpoint; see its deliveries for the outcome",
  tag: TAG,
  writesOnlyThroughSql: true,
  params: webhookEndpointIdParams,
  response: queuedDeliveryResource,
  successStatus: 202,
  errorStatuses: [404, 409],
  message: "Test event queued",
  async perform({ merchant, params, sql }) {
    const endpoint = await findWebhookEndpoint(sql, merchant.merchantId, params.webhook_endpoint_id);
    if (endpoint.status !== "enabled") throw new ConflictError("Webhook endpoint is disabled; enable it first");
    const delivery = await enqueueTestDelivery(sql, { merchantId: merchant.merchantId, endpointId: endpoint.id });
    return toQueuedDelivery(delivery);
  },
});

export const listWebhookDeliveriesRoute = defineNestedListRoute({
  path: "/v1/webhook-endpoints/{webhook_endpoint_id}/deliveries",
  operationId: "listWebhookEndpointDeliveries",
  summary: "Every delivery attempt to the endpoint, newest first: time, status code, latency, error, answer (1 KiB)",
  tag: TAG,
  params: webhookEndpointIdParams,
  // findWebhookEndpoint throws the 404 itself; notFound names the same.
  parent: findWebhookEndpoint,
  notFound: "Webhook endpoint",
  item: deliveryAttemptResource,
  read: listDeliveryAttempts,
});

export const redeliverEventRoute = defineIdempotentPost({
  path: "/v1/events/{event_id}/redeliver",
  operationId: "redeliverEvent",
  summary:
    "Send an event again: to one enabled endpoint (endpoint_id), or to every enabled endpoint subscribed to its type",
  tag: TAG,
  writesOnlyThroughSql: true,
  params: eventIdParams,
  body: redeliverEventBody,
  response: redeliveryResource,
  successStatus: 202,
  errorStatuses: [404, 409],
  message: ({ deliveries }: { deliveries: unknown[] }) => `${deliveries.length} deliveries queued`,
  async perform({ merchant, params, body, sql }) {
    const { rows } = await sql.query("SELECT 1 FROM events WHERE merchant_id = $1 AND id = $2", [
      merchant.merchantId,
      params.event_id,
    ]);
    if (rows.length === 0) throw new NotFoundError("Event");
    if (body.endpoint_id) {
      const endpoint = await findWebhookEndpoint(sql, merchant.merchantId, body.endpoint_id);
      if (endpoint.status !== "enabled") throw new ConflictError("Webhook endpoint is disabled; enable it first");
    }
    const deliveries = await redeliverEvent(sql, {
      merchantId: merchant.merchantId,
      eventId: params.event_id,
      endpointId: body.endpoint_id,
    });
    return { event_id: params.event_id, deliveries: deliveries.map(toQueuedDelivery) };
  },
});

export const webhookRoutes: AnyRoute[] = [
  createWebhookEndpointRoute,
  listWebhookEndpointsRoute,
  getWebhookEndpointRoute,
  updateWebhookEndpointRoute,
  deleteWebhookEndpointRoute,
  rotateWebhookSecretRoute,
  testWebhookEndpointRoute,
  listWebhookDeliveriesRoute,
  redeliverEventRoute,
];
