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
 * The JSON body of a webhook: the event as the merchant sees it (`data` is the object after the
 * change). Serialised once per attempt and signed as exactly those bytes.
 */
export function webhookBody(event: StoredEvent): string {
  const head = JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at.toISOString(),
    environment: event.environment,
    object: { type: event.object_type, id: event.object_id, version: event.object_version },
    idempotency_key: event.idempotency_key,
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
    created_at: delivery.createdAt.toISOString(),
    environment,
    object: { type: "webhook_endpoint", id: delivery.endpointId, version: 1 },
    idempotency_key: null,
    data: { endpoint_id: delivery.endpointId, message: "A test event sent by POST /v1/webhook-endpoints/{id}/test" },
  });
}
