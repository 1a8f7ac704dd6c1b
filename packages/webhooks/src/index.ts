export { DELIVERY_CHANNEL } from "./delivery-listener.ts";
export {
  FAILING_DISABLE_AFTER_MS,
  startWebhookWorker,
  type WebhookWorker,
  type WebhookWorkerOptions,
} from "./delivery-worker.ts";
export {
  activeSigningSecrets,
  issueSigningSecret,
  PREVIOUS_SECRET_VALIDITY_HOURS,
  WEBHOOK_SECRET_COLUMN,
} from "./endpoint-secrets.ts";
export { enqueueTestDelivery, type QueuedDelivery, redeliverEvent, replayDeliveries } from "./enqueue-deliveries.ts";
export { type StoredEvent, TEST_EVENT_TYPE, testWebhookBody, webhookBody } from "./event-body.ts";
export { createWebhookPoster, type PostOutcome, RESPONSE_BODY_LIMIT } from "./post-webhook.ts";
export { nextRetryDelayMs, parseRetryAfter, RETRY_DELAYS_MS } from "./retry-schedule.ts";
export { generateSigningSecret, type SignedHeaders, signWebhook } from "./signing.ts";
export {
  checkWebhookUrl,
  type ResolveHost,
  refusedAddress,
  resolveWithSystem,
  type WebhookEnvironment,
  WebhookUrlRefusedError,
} from "./url-guard.ts";
export { registerWebhookMetrics } from "./webhook-metrics.ts";
