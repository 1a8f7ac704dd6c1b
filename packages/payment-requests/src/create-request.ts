import { insertReturning, type Queryable, unnestColumns } from "@mp/db";
import { newCheckoutToken } from "./checkout-token.ts";
import type { QuotedOption, RequestedAmount } from "./rate-lock.ts";
import { appendRequestEvents } from "./request-events.ts";
import {
  PAYMENT_REQUEST_COLUMNS,
  type PaymentRequestResource,
  type PaymentRequestRow,
  type PresentSettings,
  presentPaymentRequest,
} from "./request-resource.ts";

export interface NewPaymentRequest extends RequestedAmount {
  id: string;
  merchantId: string;
  /** The request's own wallet (purpose PAYMENT_REQUEST), made in the same transaction. */
  walletId: string;
  customerId: string | null;
  description: string | null;
  reference: string | null;
  metadata: Record<string, string>;
  successUrl: string | null;
  cancelUrl: string | null;
  expiresAt: Date;
  rateLockedUntil: Date;
  /** Priced at the locked rates, in the order the page offers them. */
  options: readonly QuotedOption[];
  idempotencyKey?: string | undefined;
}

/**
 * Inserts the request (status open, nothing paid: all of it missing), its options and its
 * `payment_request.created` event, in the caller's transaction (the request's idempotent one).
 */
export async function insertPaymentRequest(
  sql: Queryable,
  input: NewPaymentRequest,
  settings: PresentSettings,
): Promise<PaymentRequestResource> {
  const row = await insertReturning<PaymentRequestRow>(
    sql,
    `INSERT INTO payment_requests (id, merchant_id, checkout_token, wallet_id, customer_id, currency, currency_decimals,
       amount, description, reference, metadata, success_url, cancel_url, amount_missing, rate_locked_until, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $8, $14, $15)
     RETURNING ${PAYMENT_REQUEST_COLUMNS}`,
    [
      input.id,
      input.merchantId,
      newCheckoutToken(),
      input.walletId,
      input.customerId,
      input.currency,
      input.currencyDecimals,
      input.amount.toString(),
      input.description,
      input.reference,
      JSON.stringify(input.metadata),
      input.successUrl,
      input.cancelUrl,
      input.rateLockedUntil,
      input.expiresAt,
    ],
  );
  const o = input.options;
  await sql.query(
    `INSERT INTO payment_request_options (request_id, position, chain, asset, decimals, contract_address,
       destination_id, address, amount_due, usd_rate)
     SELECT $1, o.n, o.chain, o.asset, o.decimals, o.contract, o.destination, o.address, o.due, o.rate
       FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::uuid[], $7::text[], $8::numeric[], $9::text[])
            WITH ORDINALITY AS o(chain, asset, decimals, contract, destination, address, due, rate, n)`,
    [
      input.id,
      ...unnestColumns(o, ["chain", "asset", "decimals", "contractAddress", "destinationId", "address"]),
      o.map((x) => x.amountDue.toString()),
      o.map((x) => x.usdRate),
    ],
  );
  const resource = await presentPaymentRequest(sql, row, settings);
  await appendRequestEvents(sql, input.merchantId, ["payment_request.created"], resource, input.idempotencyKey ?? null);
  return resource;
}
