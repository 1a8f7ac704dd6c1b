import { paginationQuery } from "../http/pagination.ts";
import { defineGetRoute, defineListRoute } from "../http/read-routes.ts";
import { pageSchema } from "../openapi/page-schema.ts";
import { eventIdParams, eventResource, listEventsQuery } from "./event-schemas.ts";
import { findEvent, listEvents } from "./event-store.ts";

export const listEventsRoute = defineListRoute({
  path: "/v1/events",
  operationId: "listEvents",
  summary: "List events (kept at least 30 days), newest first; filter by type, object id and creation time",
  tag: "Events",
  query: paginationQuery.extend(listEventsQuery.shape),
  response: pageSchema(eventResource),
  list: ({ merchant, query, sql }) => listEvents(sql, merchant.merchantId, query),
});

export const getEventRoute = defineGetRoute({
  path: "/v1/events/{id}",
  operationId: "getEvent",
  summary: "Retrieve one event",
  tag: "Events",
  params: eventIdParams,
  response: eventResource,
  errorStatuses: [404],
  notFound: "Event",
  find: ({ merchant, params, sql }) => findEvent(sql, merchant.merchantId, params.id),
});

export const eventRoutes = [listEventsRoute, getEventRoute];
