import { EVENT_TYPES } from "@mp/events";
import { z } from "zod";

/** An event type of the one list (packages/events), or `*` for every type, present and future. */
const enabledEvents = z
  .array(z.enum([...EVENT_TYPES, "*"]))
  .min(1, "must name at least one event type")
  .max(EVENT_TYPES.length + 1)
  .describe('Event types delivered to this endpoint, or ["*"] for all');

const webhookUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(2048)
  .describe("Receiver URL: https in production (private, loopback and link-local addresses refused)");

const description = z.string().max(500);

export const createWebhookEndpointBody = z.strictObject({
  url: webhookUrl,
  enabled_events: enabledEvents,
  description: description.optional(),
});

export const updateWebhookEndpointBody = z
  .strictObject({
    url: webhookUrl.optional(),
    enabled_events: enabledEvents.optional(),
    description: description.nullable().optional(),
    status: z.enum(["enabled", "disabled"]).optional().describe("enabled re-enables an endpoint the service disabled"),
  })
  .refine((body) => Object.keys(body).length > 0, "must change at least one field");

export const webhookEndpointIdParams = z.object({ webhook_endpoint_id: z.uuid("must be a UUID") });

export const webhookEndpointResource = z.object({
  id: z.uuid(),
  url: z.string(),
  description: z.string().nullable(),
  enabled_events: z.array(z.string()),
  status: z.enum(["enabled", "disabled"]),
  disabled_reason: z
    .enum(["manual", "gone", "failing"])
    .nullable()
    .describe("manual: the merchant; gone: the receiver answered 410; failing: no success for 5 days"),
  disabled_at: z.iso.datetime().nullable(),
  failing_since: z.iso.datetime().nullable().describe("Start of the current run of failed attempts"),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type WebhookEndpointResource = z.infer<typeof webhookEndpointResource>;

export const webhookSecretField = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
  .describe("Signing secret (Standard Webhooks), shown only in this answer");

export const createdWebhookEndpointResource = webhookEndpointResource.extend({ secret: webhookSecretField });

export const rotatedSecretResource = z.object({
  id: z.uuid(),
  secret: webhookSecretField,
  previous_secret_expires_at: z.iso.datetime().describe("Until then deliveries are signed with both secrets"),
});

export const deletedWebhookEndpointResource = z.object({ id: z.uuid(), deleted: z.literal(true) });

export const queuedDeliveryResource = z.object({
  id: z.uuid(),
  endpoint_id: z.uuid(),
  event_id: z.uuid().nullable().describe("null for a test delivery"),
  event_type: z.string(),
  status: z.enum(["pending", "succeeded", "failed", "canceled"]),
  next_attempt_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
});

export const deliveryAttemptResource = z.object({
  id: z.uuid(),
  delivery_id: z.uuid(),
  event_id: z.uuid().nullable(),
  event_type: z.string(),
  attempt: z.number().int(),
  attempted_at: z.iso.datetime(),
  status_code: z
    .number()
    .int()
    .nullable()
    .describe("null when no HTTP answer came (refused, connection error, timeout)"),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
  response_body: z.string().nullable().describe("The receiver's answer, truncated to 1 KiB"),
  succeeded: z.boolean(),
});

export const eventIdParams = z.object({ event_id: z.uuid("must be a UUID") });

export const redeliverEventBody = z.strictObject({
  endpoint_id: z
    .uuid("must be a UUID")
    .optional()
    .describe("Only this endpoint; default every enabled endpoint subscribed"),
});

export const redeliveryResource = z.object({ event_id: z.uuid(), deliveries: z.array(queuedDeliveryResource) });
