import { type Database, type NamedStatement, queryNamed } from "@mp/db";
import type { LanePlan } from "./claim-depth.ts";
import type { StoredEvent } from "./event-body.ts";

/** A delivery this process claimed, with its endpoint's columns and its event's (NULL for a test delivery). */
export interface ClaimedDelivery {
  id: string;
  merchant_id: string;
  environment: string;
  endpoint_id: string;
  event_id: string | null;
  attempts: number;
  created_at: Date;
  url: string;
  endpoint_status: "enabled" | "disabled";
  secret_version: number;
  /** The event's columns (NULL for a test delivery), read in the claim's own statement. */
  event_type: string | null;
  event_environment: string | null;
  object_type: string | null;
  object_id: string | null;
  object_version: number | null;
  data_json: string | null;
  idempotency_key: string | null;
  event_created_at: Date | null;
}

/** The claimed delivery's event, or undefined for a test delivery (or an event no longer there). */
export function eventOf(row: ClaimedDelivery): StoredEvent | undefined {
  if (!row.event_id || row.event_type === null || row.data_json === null || row.event_created_at === null)
    return undefined;
  return {
    id: row.event_id,
    type: row.event_type,
    environment: row.event_environment ?? row.environment,
    object_type: row.object_type ?? "",
    object_id: row.object_id ?? "",
    object_version: row.object_version ?? 1,
    data_json: row.data_json,
    idempotency_key: row.idempotency_key,
    created_at: row.event_created_at,
  };
}

/**
 * Claims up to $4 (free slots) due deliveries: for each enabled endpoint with at least its minimum
 * claim free of its depth (from $1/$2/$7/$8 for the endpoints this process holds deliveries of, else
 * $6 of $3), its oldest due ones up to its free depth, through the (endpoint_id, next_attempt_at) index. Walking
 * endpoints, not one queue of all deliveries, is what keeps a backed-up or hanging endpoint from
 * costing the others anything: its rows are never scanned while it is at its cap.
 *
 * The claimed rows and their events are reached by their ids as arrays (`= ANY (ARRAY(...))`), never
 * by a join on the CTE: the planner sized that join by LIMIT $4 (the free slots, 256) and read the
 * whole of webhook_deliveries and of events into hash tables on every claim (docs/benchmarks.md: the
 * first backlog drain of the webhooks bench, 20,000 rows, claimed at ~45 ms a claim under load). A
 * scan of each primary key by the ids does not grow with the tables.
 */
export const CLAIM_SQL = `
WITH busy AS (
  SELECT * FROM unnest($1::uuid[], $2::int[], $7::int[], $8::int[]) AS b (endpoint_id, in_flight, depth, min_claim)
), chosen AS (
  SELECT due.id
    FROM webhook_endpoints e
    LEFT JOIN busy ON busy.endpoint_id = e.id
   CROSS JOIN LATERAL (
     SELECT d.id FROM webhook_deliveries d
      WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now()
        AND (d.claimed_until IS NULL OR d.claimed_until < now())
      ORDER BY d.next_attempt_at
      LIMIT COALESCE(busy.depth, $3::int) - COALESCE(busy.in_flight, 0)
      FOR UPDATE SKIP LOCKED
   ) due
   WHERE e.status = 'enabled'
     AND COALESCE(busy.in_flight, 0) <= COALESCE(busy.depth, $3::int) - COALESCE(busy.min_claim, $6::int)
   LIMIT $4
), claimed AS (
  UPDATE webhook_deliveries d
     SET attempts = d.attempts + 1, claimed_until = now() + make_interval(secs => $5)
    FROM webhook_endpoints e, merchants m
   WHERE d.id = ANY (ARRAY(SELECT id FROM chosen)) AND e.id = d.endpoint_id AND m.id = d.merchant_id
  RETURNING d.id, d.merchant_id, m.environment, d.endpoint_id, d.event_id, d.attempts, d.created_at,
            e.url, e.status AS endpoint_status, e.secret_version
)
SELECT claimed.*, ev.type AS event_type, ev.environment AS event_environment, ev.object_type, ev.object_id,
       ev.object_version, ev.data::text AS data_json, ev.idempotency_key, ev.created_at AS event_created_at
  FROM claimed
  LEFT JOIN events ev ON ev.id = claimed.event_id AND ev.id = ANY (ARRAY(SELECT event_id FROM claimed))`;

/**
 * Prepared once per connection: parsing and planning it took 0.9 ms of each claim's ~3 ms in the
 * database. The generic plan PostgreSQL settles on after five custom ones has the custom plans' shape
 * (the endpoints, each one's due rows by webhook_deliveries_endpoint_due, the claimed rows and their
 * events by primary key): the ids travel as arrays, so no estimate of LIMIT $4 sizes a join.
 */
const CLAIM: NamedStatement = { name: "webhook_claim_due", text: CLAIM_SQL };

export interface ClaimRequest {
  /** Per endpoint this process holds deliveries of: how many, how many it may hold, its minimum claim. */
  held: ReadonlyMap<string, LanePlan>;
  /** The most an endpoint not held may be claimed for (the base depth). */
  baseDepth: number;
  /**
   * An endpoint not held is claimed for only once this many of its base depth are free: a
   * backlogged endpoint is refilled in batches of at least this many rather than one claim per
   * finished delivery.
   */
  baseMinClaim: number;
  /** How many to claim at the most. */
  free: number;
  leaseMs: number;
}

/** Claims due deliveries as a lease (attempts counted, claimed_until `leaseMs` ahead). */
export async function claimDueDeliveries(db: Database, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  const held = [...request.held];
  const { rows } = await queryNamed<ClaimedDelivery>(db, CLAIM, [
    held.map(([id]) => id),
    held.map(([, lane]) => lane.claimed),
    request.baseDepth,
    request.free,
    request.leaseMs / 1000,
    request.baseMinClaim,
    held.map(([, lane]) => lane.depth),
    held.map(([, lane]) => lane.minClaim),
  ]);
  return rows;
}

/** Gives claimed deliveries that were never started back now rather than at the end of their lease. */
export async function releaseClaims(db: Database, rows: readonly ClaimedDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries d SET claimed_until = NULL, attempts = d.attempts - 1
       FROM unnest($1::uuid[], $2::int[]) AS w (id, attempts)
      WHERE d.id = w.id AND d.attempts = w.attempts AND d.status = 'pending'`,
    [rows.map((r) => r.id), rows.map((r) => r.attempts)],
  );
}
