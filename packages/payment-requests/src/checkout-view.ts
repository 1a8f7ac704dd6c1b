import type { Queryable } from "@mp/db";
import type { CheckoutRow } from "./checkout-token.ts";
import { type PaymentRequestResource, type PresentSettings, presentPaymentRequest } from "./request-resource.ts";
import { PAYABLE_STATUSES } from "./statuses.ts";

/**
 * What the hosted page shows, and all that its public status answer reveals: no ids of ours, no
 * reference, metadata or customer, no transaction hashes. Addresses and amounts only while the
 * request can be paid (an expired or canceled request refuses its rate; a paid one needs nothing
 * more); the success URL once paid, the cancel URL while payable.
 */
export interface CheckoutView {
  merchant_name: string;
  status: PaymentRequestResource["status"];
  amount: string;
  currency: string;
  description: string | null;
  amount_paid: string;
  amount_pending: string;
  amount_missing: string;
  amount_excess: string;
  rate_locked_until: string;
  expires_at: string;
  /** Moves on at each re-quote: the page redraws its QR codes when it changes. */
  quote_version: number;
  /** The server's clock, so a countdown does not depend on the payer's. */
  now: string;
  options: Array<
    Pick<
      PaymentRequestResource["options"][number],
      "network" | "asset" | "address" | "amount_due" | "amount_missing" | "payment_uri"
    >
  >;
  payments: Array<
    Pick<
      PaymentRequestResource["payments"][number],
      "network" | "asset" | "amount" | "status" | "confirmations" | "required_confirmations" | "counted" | "flag"
    >
  >;
  success_url: string | null;
  cancel_url: string | null;
}

/** The page's view of the request behind `row` (see CheckoutView). */
export async function checkoutView(
  sql: Queryable,
  row: CheckoutRow,
  settings: PresentSettings,
  now: Date = new Date(),
): Promise<CheckoutView> {
  const r = await presentPaymentRequest(sql, row, settings, now);
  const payable = PAYABLE_STATUSES.has(r.status);
  const paid = r.status === "paid" || r.status === "overpaid";
  return {
    merchant_name: row.merchant_name,
    status: r.status,
    amount: r.amount,
    currency: r.currency,
    description: r.description,
    amount_paid: r.amount_paid,
    amount_pending: r.amount_pending,
    amount_missing: r.amount_missing,
    amount_excess: r.amount_excess,
    rate_locked_until: r.rate_locked_until,
    expires_at: r.expires_at,
    quote_version: row.quote_version,
    now: now.toISOString(),
    options: payable
      ? r.options.map(({ network, asset, address, amount_due, amount_missing, payment_uri }) => ({
          network,
          asset,
          address,
          amount_due,
          amount_missing,
          payment_uri,
        }))
      : [],
    payments: r.payments.map(
      ({ network, asset, amount, status, confirmations, required_confirmations, counted, flag }) => ({
        network,
        asset,
        amount,
        status,
        confirmations,
        required_confirmations,
        counted,
        flag,
      }),
    ),
    success_url: paid ? r.success_url : null,
    cancel_url: payable ? r.cancel_url : null,
  };
}
