import type {
  DepositResource as Deposit,
  LiquidationDrainResource as Drain,
  TransferResource as Transfer,
} from "../answers.ts";

/**
 * Each state of a deposit or a transfer as people say it, and its family, which gives its colour:
 * `done` (green), `progress` (amber: still moving), `held` (violet: waits for an operator), `failed`
 * (red), `canceled` (grey: ended without moving money). The label always says it too: colour is
 * never the only sign.
 */
export type StateFamily = "done" | "progress" | "held" | "failed" | "canceled";
export interface StateLabel {
  label: string;
  family: StateFamily;
}

const TRANSFER_STATES: Readonly<Record<Transfer["status"], StateLabel>> = {
  AWAITING_MERCHANT_FUNDING: { label: "Awaiting funding", family: "progress" },
  FUNDED: { label: "Funded, payout queued", family: "progress" },
  PROCESSING: { label: "Paying out", family: "progress" },
  COMPLETED: { label: "Completed", family: "done" },
  CANCELED: { label: "Canceled", family: "canceled" },
  EXPIRED: { label: "Expired unfunded", family: "canceled" },
  FAILED: { label: "Failed", family: "failed" },
  REFUNDED: { label: "Refunded", family: "canceled" },
};

export function transferState(status: Transfer["status"]): StateLabel {
  return TRANSFER_STATES[status] ?? { label: status, family: "progress" };
}

const HELD_REASONS: Readonly<Record<NonNullable<Deposit["held_reason"]>, string>> = {
  customer_rejected: "the customer's verification was rejected",
  sanctions_match: "the sender is on a sanctions list",
};

/** Why a held deposit is held, as a sentence's end. */
export function heldReasonText(reason: Deposit["held_reason"]): string {
  return reason ? (HELD_REASONS[reason] ?? reason) : "an operator's decision";
}

/** A deposit's state: a held or returned one never looks like a plain confirmed one. */
export function depositState(deposit: Deposit): StateLabel {
  if (deposit.status === "REVERSED") return { label: "Reversed by the chain", family: "failed" };
  if (deposit.status === "PENDING") {
    return deposit.awaiting_rate
      ? { label: "Awaiting a USD rate", family: "progress" }
      : { label: "Confirming", family: "progress" };
  }
  if (deposit.hold_status === "HELD") return { label: "Held", family: "held" };
  if (deposit.hold_status === "RETURNED") return { label: "Returned to payer", family: "canceled" };
  if (deposit.hold_status === "RELEASED") return { label: "Confirmed (released)", family: "done" };
  return { label: "Confirmed", family: "done" };
}

/** A liquidation drain's state as people say it (the API's code stays in StateBadge's data-state). */
const DRAIN_STATE_LABELS: Readonly<Record<Drain["state"], StateLabel>> = {
  awaiting_funds: { label: "Awaiting funds", family: "progress" },
  payment_submitted: { label: "Payout submitted", family: "progress" },
  payment_processed: { label: "Paid out", family: "done" },
  failed: { label: "Failed", family: "failed" },
  refunded: { label: "Returned", family: "canceled" },
  not_paid: { label: "Not paid out", family: "canceled" },
  canceled: { label: "Canceled", family: "canceled" },
};

const DRAIN_REASONS: Readonly<Record<string, string>> = {
  below_minimum: "below the minimum payout or the fee",
  held: "the deposit is held",
  payout_failed: "the payout failed",
  beneficiary_required: "the travel rule needs a beneficiary",
  destination_sanctioned: "the destination is on a sanctions list",
  destination_internal: "the destination is one of our addresses",
  customer_not_verified: "the customer is not verified",
  amount_below_minimum: "below the minimum payout",
  retries_exhausted: "every payout try failed",
};

export function drainState(state: Drain["state"]): StateLabel {
  return DRAIN_STATE_LABELS[state] ?? { label: state, family: "progress" };
}

/** Why a drain failed or was not paid out, in words ("—" when neither). */
export function drainReasonText(drain: Pick<Drain, "failure_reason" | "not_paid_reason">): string {
  const reason = drain.failure_reason ?? drain.not_paid_reason;
  return reason ? (DRAIN_REASONS[reason] ?? reason) : "—";
}

/** A quote's state (the quotes page): usable until it expires; used once a transfer took it. */
const QUOTE_STATES: Readonly<Record<"open" | "expired" | "used", StateLabel>> = {
  open: { label: "Open", family: "progress" },
  used: { label: "Used by a transfer", family: "done" },
  expired: { label: "Expired unused", family: "canceled" },
};

export function quoteState(state: "open" | "expired" | "used"): StateLabel {
  return QUOTE_STATES[state];
}
