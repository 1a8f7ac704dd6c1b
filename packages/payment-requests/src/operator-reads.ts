import type { Queryable } from "@mp/db";
import {
  type PaymentRequestResource,
  type PresentSettings,
  presentPaymentRequest,
  presentPaymentRequests,
  selectPaymentRequestRows,
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
  const rows = await selectPaymentRequestRows(
    sql,
    `WHERE ($1::uuid IS NULL OR merchant_id = $1) AND ($2::text IS NULL OR status = $2)
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
  const [row] = await selectPaymentRequestRows(sql, "WHERE id = $1", [id]);
  if (!row) return undefined;
  return { ...(await presentPaymentRequest(sql, row, settings)), merchant_id: row.merchant_id };
}
