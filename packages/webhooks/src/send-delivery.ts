import { type ClaimedDelivery, eventOf } from "./claimed-delivery.ts";
import type { EndpointSigners } from "./endpoint-signers.ts";
import { testWebhookBody, webhookBody } from "./event-body.ts";
import type { PostOutcome, WebhookPoster } from "./post-webhook.ts";
import { signWebhook } from "./signing.ts";

/** One attempt: the event's body (or a test delivery's), signed with the endpoint's valid secrets, posted. */
export async function sendDelivery(
  poster: WebhookPoster,
  signers: EndpointSigners,
  row: ClaimedDelivery,
  attemptedAt: Date,
): Promise<PostOutcome> {
  const event = eventOf(row);
  const keys = signers.validAt(row, attemptedAt);
  if ((row.event_id && !event) || keys.length === 0) {
    return { latencyMs: 0, error: "event or signing secret not loaded" };
  }
  const body = event
    ? webhookBody(event)
    : testWebhookBody({ id: row.id, endpointId: row.endpoint_id, createdAt: row.created_at }, row.environment);
  const headers = signWebhook(event ? event.id : row.id, attemptedAt, body, keys);
  return poster.post(row.url, headers, body);
}
