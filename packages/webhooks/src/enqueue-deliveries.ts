import type { Queryable } from "@mp/db";
import { DELIVERY_CHANNEL } from "./delivery-listener.ts";
import { TEST_EVENT_TYPE } from "./event-body.ts";

/** A delivery as the API shows it after enqueuing. */
export interface QueuedDelivery {
  id: string;
  endpoint_id: string;
  event_id: string | null;
  event_type: string;
  status: string;
  next_attempt_at: Date;
  created_at: Date;
}

const RETURNING = "RETURNING id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at";

/** Wakes the workers when the caller's transaction commits (as the fan-out trigger does). */
async function notifyWorkers(sql: Queryable): Promise<void> {
  await sql.query("SELECT pg_notify($1, '')", [DELIVERY_CHANNEL]);
}

/** POST /v1/webhook-endpoints/{id}/test: one delivery of a test event (no row in `events`). */
export async function enqueueTestDelivery(
  sql: Queryable,
  input: { merchantId: string; endpointId: string },
): Promise<QueuedDelivery> {
  const { rows } = await sql.query<QueuedDelivery>(
    `INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, event_type)
     VALUES (gen_random_uuid(), $1, $2, NULL, $3) ${RETURNING}`,
    [input.merchantId, input.endpointId, TEST_EVENT_TYPE],
  );
  await notifyWorkers(sql);
  const row = rows[0];
  if (!row) throw new Error("test delivery not stored");
  return row;
}

/**
 * POST /v1/events/{id}/redeliver: a new delivery of the event to one enabled endpoint (whatever types
 * it subscribes to: the merchant asked for this one), or to every enabled endpoint subscribed to it.
 * New rows, so the history of the earlier ones stays as it was.
 */
export async function redeliverEvent(
  sql: Queryable,
  input: { merchantId: string; eventId: string; endpointId?: string | undefined },
): Promise<QueuedDelivery[]> {
  const { rows } = await sql.query<QueuedDelivery>(
    `INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, event_type)
     SELECT gen_random_uuid(), ev.merchant_id, e.id, ev.id, ev.type
       FROM events ev JOIN webhook_endpoints e ON e.merchant_id = ev.merchant_id
      WHERE ev.id = $1 AND ev.merchant_id = $2 AND e.status = 'enabled'
        AND CASE WHEN $3::uuid IS NULL
                 THEN e.enabled_events @> ARRAY['*'] OR e.enabled_events @> ARRAY[ev.type]
                 ELSE e.id = $3::uuid END
     ${RETURNING}`,
    [input.eventId, input.merchantId, input.endpointId ?? null],
  );
  if (rows.length > 0) await notifyWorkers(sql);
  return rows;
}

/**
 * `payments webhooks replay`: after an outage (ours or a receiver's), sends again every event created
 * in [from, to) to each enabled endpoint subscribed to it that existed when the event was created,
 * unless that endpoint already received it or has it pending. Running it twice queues nothing twice.
 */
export async function replayDeliveries(
  sql: Queryable,
  input: { from: Date; to: Date; merchantId?: string | undefined },
): Promise<number> {
  const { rowCount } = await sql.query(
    `INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, event_type)
     SELECT gen_random_uuid(), ev.merchant_id, e.id, ev.id, ev.type
       -- Merchant by merchant: events are indexed by (merchant_id, created_at), not by created_at
       -- alone (0371), and every event names a merchant that exists.
       FROM merchants m
       JOIN events ev ON ev.merchant_id = m.id
       JOIN webhook_endpoints e ON e.merchant_id = ev.merchant_id
      WHERE ev.created_at >= $1 AND ev.created_at < $2
        AND ($3::uuid IS NULL OR m.id = $3::uuid)
        AND e.status = 'enabled' AND e.created_at <= ev.created_at
        AND (e.enabled_events @> ARRAY['*'] OR e.enabled_events @> ARRAY[ev.type])
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries d
           WHERE d.event_id = ev.id AND d.endpoint_id = e.id AND d.status IN ('pending', 'succeeded'))`,
    [input.from, input.to, input.merchantId ?? null],
  );
  if ((rowCount ?? 0) > 0) await notifyWorkers(sql);
  return rowCount ?? 0;
}
