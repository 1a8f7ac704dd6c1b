/** A liquidation address's statuses: active (deposits drain), disabled (deposits are ordinary). */
export const LIQUIDATION_ADDRESS_STATUSES = ["active", "disabled"] as const;
export type LiquidationAddressStatus = (typeof LIQUIDATION_ADDRESS_STATUSES)[number];

/** A drain's states (migrations/0220_liquidation_addresses.sql says what each means and which moves exist). */
export const DRAIN_STATES = [
  "awaiting_funds",
  "payment_submitted",
  "payment_processed",
  "failed",
  "refunded",
  "not_paid",
  "canceled",
] as const;
export type DrainState = (typeof DRAIN_STATES)[number];

/** Why a confirmed deposit was not paid out: too small to pay (the chain's minimum, or the fee), or held. */
export const NOT_PAID_REASONS = ["below_minimum", "held"] as const;
export type NotPaidReason = (typeof NOT_PAID_REASONS)[number];

/**
 * Refusals no retry changes, a drain's failure_reason being the error's code: the payout itself is
 * refused (a beneficiary missing at or above the travel rule threshold, a sanctioned or internal
 * destination, a customer no longer verified, an amount under the chain's minimum).
 */
export const FINAL_REFUSALS = [
  "beneficiary_required",
  "destination_sanctioned",
  "destination_internal",
  "customer_not_verified",
  "amount_below_minimum",
] as const;

/**
 * Why a drain failed (failure_reason): its transfer failed (payout_failed); or no transfer could be
 * made: a final refusal, or every try failed (retries_exhausted).
 */
export const DRAIN_FAILURE_REASONS = ["payout_failed", ...FINAL_REFUSALS, "retries_exhausted"] as const;
export type DrainFailureReason = (typeof DRAIN_FAILURE_REASONS)[number];
