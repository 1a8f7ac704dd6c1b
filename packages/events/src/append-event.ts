import { randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";
import type { EventObjectType, EventType } from "./event-types.ts";

export interface AppendEventInput {
  merchantId: string;
  type: EventType;
  objectType: EventObjectType;
  objectId: string;
  /** The object as it is after the change, in its API JSON form. */
  data: unknown;
  /** The Idempotency-Key of the request that caused the change, when there was one. */
  idempotencyKey?: string | null;
}

/**
 * Appends one event. Call it with the client of the transaction that makes the change, never the pool:
 * the event then commits or rolls back with the change (the outbox rule). The caller holds the
 * object's row lock (it is changing the row), which serialises versions of one object; the unique
 * (object_id, object_version) turns a missed lock into an error instead of a duplicate version.
 */
export async function appendEvent(
  client: Queryable,
  input: AppendEventInput,
): Promise<{ id: string; version: number }> {
  const id = randomUUID();
  const result = await client.query<{ object_version: number }>(
    `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, data, idempotency_key)
     SELECT $1, m.id, m.environment, $3, $4, $5,
            COALESCE((SELECT max(object_version) FROM events WHERE object_id = $5), 0) + 1,
            $6::jsonb, $7
       FROM merchants m WHERE m.id = $2
     RETURNING object_version`,
    [
      id,
      input.merchantId,
      input.type,
      input.objectType,
      input.objectId,
      JSON.stringify(input.data),
      input.idempotencyKey ?? null,
    ],
  );
  const row = result.rows[0];
  if (!row) throw new Error(`appendEvent: merchant ${input.merchantId} not found`);
  return { id, version: row.object_version };
}
