import { defineResourceReads } from "../http/read-routes.ts";
import { eventIdParams, eventResource, listEventsQuery } from "./event-schemas.ts";
import { findEvent, listEvents } from "./event-store.ts";

export const [listEventsRoute, getEventRoute] = defineResourceReads({
  path: "/v1/events",
  tag: "Events",
  item: eventResource,
  params: eventIdParams,
  notFound: "Event",
  list: {
    operationId: "listEvents",
    summary: "List events (kept at least 30 days), newest first; filter by type, object id and creation time",
    filters: listEventsQuery,
    read: listEvents,
  },
  get: { operationId: "getEvent", summary: "Retrieve one event", read: findEvent },
});

export const eventRoutes = [listEventsRoute, getEventRoute];
