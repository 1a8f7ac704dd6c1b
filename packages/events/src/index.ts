export { type AppendEventInput, appendEvent, appendEvents } from "./append-event.ts";
export {
  appendDepositEvents,
  DEPOSIT_COLUMNS,
  DEPOSIT_STATUSES,
  type DepositResource,
  type DepositRow,
  depositResource,
  HOLD_STATUSES,
  toDepositResource,
} from "./deposit-resource.ts";
export { depositsOfWallet } from "./deposits-of-wallet.ts";
export { EVENT_TYPES, type EventObjectType, type EventType } from "./event-types.ts";
export { MIN_EVENT_RETENTION_DAYS, pruneEvents } from "./prune-events.ts";
export { appendResourceEvent } from "./resource-event.ts";
