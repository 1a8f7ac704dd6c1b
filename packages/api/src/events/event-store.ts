import { defineGetQuery, defineListQuery, type ResourceTable } from "../shared/list-page.ts";
import { type RowOf, resourceTable } from "../shared/resource-row.ts";
import type { EventResource } from "./event-schemas.ts";

type EventRow = RowOf<EventResource, "created_at">;

/** This merchant's events, newest first (appends of one transaction share created_at: seq breaks ties). */
const EVENTS: ResourceTable<EventRow, EventResource> = resourceTable<EventRow>({
  from: "events",
  columns: "id, type, object_type, object_id, object_version, environment, idempotency_key, created_at, data",
  orderBy: "created_at DESC, seq DESC",
});

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

/** This merchant's events, newest first. */
export const listEvents = defineListQuery(EVENTS, "merchant_id", (where, filters: EventFilters) => {
  where.equal(filters, "type", "object_id").createdWithin(filters);
  if (filters.delivery_failed !== undefined) {
    where.addClause(filters.delivery_failed ? DELIVERY_FAILED : `NOT ${DELIVERY_FAILED}`);
  }
});

/** One event of this merchant, or undefined (another merchant's looks exactly like a missing one). */
export const findEvent = defineGetQuery(EVENTS);
