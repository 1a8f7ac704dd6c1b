export { type AppendEventInput, appendEvent } from "./append-event.ts";
export { EVENT_TYPES, type EventObjectType, type EventType } from "./event-types.ts";
