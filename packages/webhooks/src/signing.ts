import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** A new signing secret as Standard Webhooks writes them: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The headers of one attempt. `id` is the same on every attempt of a delivery; the timestamp is new. */
export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * Signs `body` (exactly the string sent, as UTF-8) with each active secret, by the reference
 * implementation (`standardwebhooks`): `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, space separated.
 * During a rotation window both the new and the old secret sign, so a receiver still on the old
 * secret verifies too.
 */
export function signWebhook(id: string, at: Date, body: string, secrets: readonly Webhook[]): SignedHeaders {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => secret.sign(id, at, body)).join(" "),
  };
}

export { Webhook as WebhookSigner };
