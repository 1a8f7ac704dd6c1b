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
  const [appended] = await appendEvents(client, [input]);
  if (!appended) throw new Error(`appendEvent: merchant ${input.merchantId} not found`);
  return appended;
}

const APPEND_EVENTS = insertEventsFrom(`SELECT * FROM jsonb_to_recordset($1::jsonb)
       AS e(id uuid, merchant_id uuid, type text, object_type text, object_id text, data jsonb, idempotency_key text, ord int)`);

/**
 * Appends many events in one statement (the indexer's chunks of up to 500 deposits), in the order
 * given: versions follow that order, also for two events of one object in the same call (a deposit
 * confirmed into a hold is `deposit.confirmed` then `deposit.held`). Same rules as appendEvent.
 */
export async function appendEvents(
  client: Queryable,
  inputs: readonly AppendEventInput[],
): Promise<Array<{ id: string; version: number }>> {
  if (inputs.length === 0) return [];
  const ids = inputs.map(() => randomUUID());
  // One JSON document for all rows, not one array per column: pg escapes every element of a text
  // array (each event's JSON data is full of quotes) and the server parses the array and then each
  // element again; a catch-up's 2,000 events spent more in that than in the insert.
  const rows = inputs.map((i, n) => ({
    id: ids[n],
    merchant_id: i.merchantId,
    type: i.type,
    object_type: i.objectType,
    object_id: i.objectId,
    data: i.data,
    idempotency_key: i.idempotencyKey ?? null,
    ord: n,
  }));
  const result = await client.query<{ id: string; object_version: number }>(APPEND_EVENTS, [JSON.stringify(rows)]);
  if (result.rows.length !== inputs.length) {
    throw new Error(`appendEvents: ${inputs.length - result.rows.length} events name no merchant`);
  }
  // RETURNING has no defined order: answer in the order of the inputs.
  const versions = new Map(result.rows.map((row) => [row.id, row.object_version]));
  return ids.map((id) => ({ id, version: versions.get(id) ?? 0 }));
}

/**
 * The INSERT of the events `source` selects: rows of (id, merchant_id, type, object_type,
 * object_id, data, idempotency_key, ord), numbered per object in `ord` order after the object's
 * latest version (appendEvents), for appenders that render their events in the statement itself
 * (appendDepositEvents). RETURNING id, object_version.
 */
export function insertEventsFrom(source: string): string {
  return `WITH e AS MATERIALIZED (
       ${source}
     ), latest AS (
       -- One grouped read for the whole call, not a lookup per row (which a planner that still thinks
       -- the table is empty runs as a scan per row: quadratic in an indexer catch-up).
       SELECT object_id, max(object_version) AS version FROM events
        WHERE object_id IN (SELECT object_id FROM e) GROUP BY object_id
     )
     INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, data, idempotency_key)
     SELECT e.id, m.id, m.environment, e.type, e.object_type, e.object_id,
            COALESCE(latest.version, 0) + row_number() OVER (PARTITION BY e.object_id ORDER BY e.ord),
            e.data, e.idempotency_key
       FROM e JOIN merchants m ON m.id = e.merchant_id LEFT JOIN latest ON latest.object_id = e.object_id
      ORDER BY e.ord
     RETURNING id, object_version`;
}
