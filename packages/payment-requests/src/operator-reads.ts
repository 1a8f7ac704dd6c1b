import type { Queryable } from "@mp/db";
import {
  PAYMENT_REQUEST_COLUMNS,
  type PaymentRequestResource,
  type PaymentRequestRow,
  type PresentSettings,
  presentPaymentRequests,
} from "./request-resource.ts";
import type { PaymentRequestStatus } from "./statuses.ts";

/** A request as an operator sees it: the merchant's resource and whose it is. */
export type OperatorPaymentRequest = PaymentRequestResource & { merchant_id: string };

/**
 * The newest requests of every merchant (or of one), for `payments payment-requests list`: the
 * operator's view, unscoped by design (the CLI holds the database, not a merchant's key).
 */
export async function listPaymentRequestsForOperator(
  sql: Queryable,
  filters: { merchantId?: string | undefined; status?: PaymentRequestStatus | undefined; limit: number },
  settings: PresentSettings,
): Promise<OperatorPaymentRequest[]> {
  const { rows } = await sql.query<PaymentRequestRow>(
    `SELECT ${PAYMENT_REQUEST_COLUMNS} FROM payment_requests
      WHERE ($1::uuid IS NULL OR merchant_id = $1) AND ($2::text IS NULL OR status = $2)
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [filters.merchantId ?? null, filters.status ?? null, filters.limit],
  );
  const resources = await presentPaymentRequests(sql, rows, settings);
  return resources.map((r, i) => ({ ...r, merchant_id: rows[i]?.merchant_id ?? "" }));
}

/** One request of any merchant, for `payments payment-requests show`; undefined when there is none. */
export async function findPaymentRequestForOperator(
  sql: Queryable,
  id: string,
  settings: PresentSettings,
): Promise<OperatorPaymentRequest | undefined> {
  const { rows } = await sql.query<PaymentRequestRow>(
    `SELECT ${PAYMENT_REQUEST_COLUMNS} FROM payment_requests WHERE id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) return undefined;
  const [resource] = await presentPaymentRequests(sql, [row], settings);
  return resource && { ...resource, merchant_id: row.merchant_id };
}
