import type { Queryable } from "@mp/db";
import { appendEvent } from "./append-event.ts";
import type { EventObjectType, EventType } from "./event-types.ts";

/** The object kind an event type names before its dot (`wallet.created` -> `wallet`). */
type ObjectTypeOf<T extends EventType> = T extends `${infer Object}.${string}` ? Object & EventObjectType : never;

/**
 * The event of a change to one of the merchant's resources, appended in the transaction that made
 * the change (which holds the resource's row lock, so its versions are serialised): its object is
 * `resource` as the API answers it, its object type the one `type` names.
 */
export async function appendResourceEvent<T extends EventType>(
  sql: Queryable,
  merchantId: string,
  type: T,
  resource: { id: string },
  idempotencyKey?: string | undefined,
): Promise<void> {
  await appendEvent(sql, {
    merchantId,
    type,
    objectType: type.slice(0, type.indexOf(".")) as ObjectTypeOf<T>,
    objectId: resource.id,
    data: resource,
    idempotencyKey: idempotencyKey ?? null,
  });
}
