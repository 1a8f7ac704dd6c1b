/** The webhooks page's routes besides the endpoint list: health, event types, edits, rotation, payloads. */

import type {
  DeletedWebhookEndpointResource,
  EndpointHealthAnswer,
  EventResource,
  RotatedSecretAnswer,
  WebhookEndpointResource,
} from "./answers.ts";
import { call } from "./api.ts";

export type EndpointHealth = EndpointHealthAnswer;

const m = (merchantId: string, path: string) => `/merchants/${encodeURIComponent(merchantId)}${path}`;
const e = encodeURIComponent;

export interface EndpointChange {
  url?: string;
  enabled_events?: string[];
  description?: string | null;
}

export const webhookApi = {
  health: (id: string) => call<{ items: EndpointHealth[] }>("GET", m(id, "/webhook-health")),
  eventTypes: (id: string) => call<{ items: string[] }>("GET", m(id, "/event-types")),
  update: (id: string, endpointId: string, body: EndpointChange) =>
    call<WebhookEndpointResource>("PATCH", m(id, `/webhook-endpoints/${e(endpointId)}`), body),
  remove: (id: string, endpointId: string) =>
    call<DeletedWebhookEndpointResource>("DELETE", m(id, `/webhook-endpoints/${e(endpointId)}`)),
  rotate: (id: string, endpointId: string) =>
    call<RotatedSecretAnswer>("POST", m(id, `/webhook-endpoints/${e(endpointId)}/rotate-secret`)),
  event: (id: string, eventId: string) => call<EventResource>("GET", m(id, `/events/${e(eventId)}`)),
};
