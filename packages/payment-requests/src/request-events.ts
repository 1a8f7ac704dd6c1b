import type { Queryable } from "@mp/db";
import { appendEvents, type EventType } from "@mp/events";
import type { PaymentRequestResource } from "./request-resource.ts";

export type PaymentRequestEventType = Extract<EventType, `payment_request.${string}`>;

/**
 * The events of one change of a request, in order, each carrying the request as it is after the
 * change (the form GET answers), in the transaction of the change (the caller holds the row lock).
 */
export async function appendRequestEvents(
  sql: Queryable,
  merchantId: string,
  types: readonly PaymentRequestEventType[],
  resource: PaymentRequestResource,
  idempotencyKey: string | null = null,
): Promise<void> {
  await appendEvents(
    sql,
    types.map((type) => ({
      merchantId,
      type,
      objectType: "payment_request" as const,
      objectId: resource.id,
      data: resource,
      idempotencyKey,
    })),
  );
}
