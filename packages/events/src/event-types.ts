/**
 * The one list of event types (`resource.action`). Every event the service appends has one of these
 * types; docs/events.md documents each with an example body.
 */
export const EVENT_TYPES = [
  "customer.created",
  "customer.status_changed",
  "verification_submission.created",
  "verification_submission.status_changed",
  "virtual_account.created",
  "virtual_account.status_changed",
  "wallet.created",
  "deposit.pending",
  "deposit.confirmed",
  "deposit.reversed",
  "deposit.held",
  "deposit.released",
  "deposit.returned",
  "deposit.return_sent",
  "bank_deposit.created",
  "bank_deposit.held",
  "bank_deposit.released",
  "bank_deposit.returned",
  "bank_deposit.return_sent",
  "bank_deposit.return_failed",
  "transfer.created",
  "transfer.funding_received",
  "transfer.funded",
  "transfer.canceled",
  "transfer.expired",
  "transfer.late_funding",
  "transfer.funding_reversed",
  "transfer.processing",
  "transfer.completed",
  "transfer.failed",
  "transfer.refunded",
  "payment_request.created",
  "payment_request.processing",
  "payment_request.paid",
  "payment_request.underpaid",
  "payment_request.overpaid",
  "payment_request.expired",
  "payment_request.canceled",
  "payment_request.late_payment",
  "payment_request.unaccepted_payment",
  "payment_request.payment_reversed",
  "liquidation_address.created",
  "liquidation_address.disabled",
  "liquidation_address.drain.payment_submitted",
  "liquidation_address.drain.payment_processed",
  "liquidation_address.drain.failed",
  "liquidation_address.drain.refunded",
  "liquidation_address.drain.not_paid",
  "liquidation_address.drain.canceled",
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The object kinds events carry, as named in `object_type` and in the event body. */
export type EventObjectType =
  | "customer"
  | "verification_submission"
  | "virtual_account"
  | "wallet"
  | "deposit"
  | "bank_deposit"
  | "transfer"
  | "payment_request"
  | "liquidation_address"
  | "liquidation_drain";
