/** An event as stored (migration 0070), the columns a webhook body needs. */
export interface StoredEvent {
  id: string;
  type: string;
  environment: string;
  object_type: string;
  object_id: string;
  object_version: number;
  /** `data` as PostgreSQL renders the jsonb: spliced in as is, never parsed and serialised again. */
  data_json: string;
  idempotency_key: string | null;
  created_at: Date;
}

/**
 * The JSON body of a webhook: the event exactly as `GET /v1/events/{id}` shows it (the same fields,
 * flat: `object_type`, `object_id`, `object_version`; `data` is the object after the change), so a
 * merchant parses one shape whichever way the event reached it. Serialised once per attempt and
 * signed as exactly those bytes.
 */
export function webhookBody(event: StoredEvent): string {
  const head = JSON.stringify({
    id: event.id,
    type: event.type,
    object_type: event.object_type,
    object_id: event.object_id,
    object_version: event.object_version,
    environment: event.environment,
    idempotency_key: event.idempotency_key,
    created_at: event.created_at.toISOString(),
  });
  return `${head.slice(0, -1)},"data":${event.data_json}}`;
}

/** The test event's type: never appended to `events`, sent only by POST /v1/webhook-endpoints/{id}/test. */
export const TEST_EVENT_TYPE = "webhook_endpoint.test";

/** The body of a test delivery: its id is the delivery's own (there is no event). */
export function testWebhookBody(
  delivery: { id: string; endpointId: string; createdAt: Date },
  environment: string,
): string {
  return JSON.stringify({
    id: delivery.id,
    type: TEST_EVENT_TYPE,
    object_type: "webhook_endpoint",
    object_id: delivery.endpointId,
    object_version: 1,
    environment,
    idempotency_key: null,
    created_at: delivery.createdAt.toISOString(),
    data: { endpoint_id: delivery.endpointId, message: "A test event sent by POST /v1/webhook-endpoints/{id}/test" },
  });
}
