import type { Queryable } from "@mp/db";
import type { Page } from "../http/envelope.ts";
import type { Pagination } from "../http/pagination.ts";
import { listPage } from "../shared/list-page.ts";
import { iso, SqlFilters } from "../shared/sql-filters.ts";
import type { EventResource } from "./event-schemas.ts";

interface EventRow {
  id: string;
  type: EventResource["type"];
  object_type: EventResource["object_type"];
  object_id: string;
  object_version: number;
  environment: EventResource["environment"];
  idempotency_key: string | null;
  data: EventResource["data"];
  created_at: Date;
}

const COLUMNS = "id, type, object_type, object_id, object_version, environment, idempotency_key, data, created_at";

function toResource(row: EventRow): EventResource {
  return {
    id: row.id,
    type: row.type,
    object_type: row.object_type,
    object_id: row.object_id,
    object_version: row.object_version,
    environment: row.environment,
    idempotency_key: row.idempotency_key,
    created_at: iso(row.created_at),
    data: row.data,
  };
}

export interface EventFilters {
  type?: string | undefined;
  object_id?: string | undefined;
  created_from?: string | undefined;
  created_to?: string | undefined;
  delivery_failed?: boolean | undefined;
}

/** An event one of whose deliveries failed for good, or whose last attempt failed and is retried. */
const DELIVERY_FAILED = `EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id
  AND (d.status = 'failed' OR (d.status = 'pending' AND (d.last_error IS NOT NULL OR d.last_status_code IS NOT NULL))))`;

/** This merchant's events, newest first (appends of one transaction share created_at: seq breaks ties). */
export function listEvents(
  sql: Queryable,
  merchantId: string,
  filters: EventFilters & Pagination,
): Promise<Page<EventResource>> {
  const where = new SqlFilters()
    .add("merchant_id = $?", merchantId)
    .add("type = $?", filters.type)
    .add("object_id = $?", filters.object_id)
    .add("created_at >= $?", filters.created_from)
    .add("created_at <= $?", filters.created_to);
  if (filters.delivery_failed !== undefined) {
    where.addClause(filters.delivery_failed ? DELIVERY_FAILED : `NOT ${DELIVERY_FAILED}`);
  }
  return listPage<EventRow, EventResource>(
    sql,
    {
      from: "events",
      columns: COLUMNS,
      where,
      orderBy: "created_at DESC, seq DESC",
      toItems: (rows) => rows.map(toResource),
    },
    filters,
  );
}

/** One event of this merchant, or undefined (another merchant's looks exactly like a missing one). */
export async function findEvent(
  sql: Queryable,
  merchantId: string,
  eventId: string,
): Promise<EventResource | undefined> {
  const result = await sql.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE merchant_id = $1 AND id = $2`, [
    merchantId,
    eventId,
  ]);
  const row = result.rows[0];
  return row ? toResource(row) : undefined;
}
