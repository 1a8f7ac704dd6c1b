import { NotFoundError } from "@mp/core";
import { paginationQuery } from "../http/pagination.ts";
import { defineRoute } from "../http/route.ts";
import { pageSchema } from "../openapi/page-schema.ts";
import { eventIdParams, eventResource, listEventsQuery } from "./event-schemas.ts";
import { findEvent, listEvents } from "./event-store.ts";

export const listEventsRoute = defineRoute({
  method: "get",
  path: "/v1/events",
  operationId: "listEvents",
  summary: "List events (kept at least 30 days), newest first; filter by type, object id and creation time",
  tag: "Events",
  auth: true,
  query: paginationQuery.extend(listEventsQuery.shape),
  response: pageSchema(eventResource),
  successStatus: 200,
  async handler({ merchant, query, sql }) {
    return { status: 200, data: await listEvents(sql, merchant.merchantId, query) };
  },
});

export const getEventRoute = defineRoute({
  method: "get",
  path: "/v1/events/{id}",
  operationId: "getEvent",
  summary: "Retrieve one event",
  tag: "Events",
  auth: true,
  params: eventIdParams,
  response: eventResource,
  successStatus: 200,
  errorStatuses: [404],
  async handler({ merchant, params, sql }) {
    const event = await findEvent(sql, merchant.merchantId, params.id);
    if (!event) throw new NotFoundError("Event");
    return { status: 200, data: event };
  },
});

export const eventRoutes = [listEventsRoute, getEventRoute];
