/**
 * A payment request's statuses. `open`: nothing counted yet; `processing`: a payment is seen, not yet
 * confirmed; `paid` / `overpaid`: confirmed payments cover the amount (exactly / with an excess);
 * `underpaid`: confirmed payments cover part of it, the payer may top up until expiry; `expired`:
 * not covered by `expires_at`; `canceled`: the merchant canceled it. Only a reorganisation moves a
 * paid request back (its payment no longer counts).
 */
export const PAYMENT_REQUEST_STATUSES = [
  "open",
  "processing",
  "paid",
  "underpaid",
  "overpaid",
  "expired",
  "canceled",
] as const;
export type PaymentRequestStatus = (typeof PAYMENT_REQUEST_STATUSES)[number];

/**
 * Why a payment to a request's address does not count toward it (it is credited to the merchant
 * like any deposit all the same): `late`, first seen after the request expired or was canceled;
 * `not_accepted`, an asset or network the request does not take; `held`, credited to held (the
 * request's customer was rejected).
 */
export const PAYMENT_FLAGS = ["late", "not_accepted", "held"] as const;
export type PaymentFlag = (typeof PAYMENT_FLAGS)[number];

/** The statuses in which a payer may still pay (the page shows addresses and amounts). */
export const PAYABLE_STATUSES: ReadonlySet<PaymentRequestStatus> = new Set(["open", "processing", "underpaid"]);
