import { randomUUID } from "node:crypto";
import type { Database } from "@mp/db";
import { appendEvent, type EventType } from "@mp/events";
import type { ApiHarness, TestMerchant } from "./api-harness.ts";

/** Registers an endpoint through the API; returns its id and the secret shown once. */
export async function createEndpoint(
  api: ApiHarness,
  merchant: TestMerchant,
  url: string,
  enabledEvents: string[] = ["*"],
): Promise<{ id: string; secret: string }> {
  const answer = await api.call(merchant.apiKey, "/v1/webhook-endpoints", {
    method: "POST",
    idempotencyKey: randomUUID(),
    json: { url, enabled_events: enabledEvents },
  });
  if (answer.status !== 201) throw new Error(`endpoint not created: ${answer.status} ${answer.text}`);
  return { id: answer.body.data.id, secret: answer.body.data.secret };
}

/** Appends an event the way every state change does: appendEvent inside the change's transaction. */
export async function emitEvent(
  db: Database,
  merchantId: string,
  type: EventType = "deposit.confirmed",
): Promise<string> {
  const objectId = randomUUID();
  return db.tx(async (client) => {
    const { id } = await appendEvent(client, {
      merchantId,
      type,
      objectType: "deposit",
      objectId,
      data: { id: objectId, status: "CONFIRMED", amount: "12.500000", note: "é ✓ \u2028" },
    });
    return id;
  });
}
