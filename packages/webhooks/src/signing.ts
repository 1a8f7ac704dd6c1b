import { createHmac, randomBytes } from "node:crypto";

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
export function signWebhook(id: string, at: Date, body: string, secrets: readonly WebhookSigner[]): SignedHeaders {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((secret) => secret.sign(id, at, body)).join(" "),
  };
}

/**
 * One secret's signer: the reference implementation's `Webhook.sign` (`standardwebhooks`, which the
 * tests verify every delivery with), on node's native HMAC rather than its JavaScript SHA-256: the
 * worker signs every attempt, and the JavaScript hash was a measurable share of a delivery's CPU.
 */
export class WebhookSigner {
  private readonly key: Buffer;

  /** `secret`: `whsec_` + base64 of the key bytes (the prefix optional, as the reference takes it). */
  constructor(secret: string) {
    this.key = Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
    if (this.key.length === 0) throw new Error("Secret can't be empty.");
  }

  /** `v1,` + base64 of HMAC-SHA256(key, `${id}.${unix seconds}.${body}`), the body's UTF-8 bytes. */
  sign(id: string, at: Date, body: string): string {
    const mac = createHmac("sha256", this.key).update(`${id}.${Math.floor(at.getTime() / 1000)}.${body}`, "utf8");
    return `v1,${mac.digest("base64")}`;
  }
}
