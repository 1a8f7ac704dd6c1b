import { ConflictError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { matchPaymentRequest } from "./match-payments.ts";
import { appendRequestEvents } from "./request-events.ts";
import {
  findPaymentRequestRow,
  type PaymentRequestResource,
  type PresentSettings,
  presentPaymentRequest,
} from "./request-resource.ts";

/**
 * Cancels a request nobody is paying: open, or underpaid (what was paid stays the merchant's, as
 * credited). Its deposits are matched first under the row lock, so a payment seen a moment ago is
 * known: a request being paid (processing), paid, or already ended is 409. Money arriving later is
 * credited and flagged late. `payment_request.canceled` is appended in the same transaction.
 */
export async function cancelPaymentRequest(
  sql: Queryable,
  input: { merchantId: string; id: string; idempotencyKey?: string | undefined },
  settings: PresentSettings,
  now: Date = new Date(),
): Promise<PaymentRequestResource> {
  const owned = await findPaymentRequestRow(sql, input.merchantId, input.id, true);
  if (!owned) throw new NotFoundError("Payment request");
  await matchPaymentRequest(sql, owned.id, settings, now);
  const row = await findPaymentRequestRow(sql, input.merchantId, input.id);
  if (!row) throw new NotFoundError("Payment request");
  if (row.status !== "open" && row.status !== "underpaid") {
    throw new ConflictError(`The payment request is ${row.status}: only an open or underpaid one can be canceled`);
  }
  const { rows } = await sql.query<{ id: string }>(
    `UPDATE payment_requests SET status = 'canceled', canceled_at = $2, amount_pending = 0, updated_at = now()
      WHERE id = $1 RETURNING id`,
    [row.id, now],
  );
  if (rows.length !== 1) throw new Error("the payment request vanished under its lock");
  const updated = await findPaymentRequestRow(sql, input.merchantId, input.id);
  if (!updated) throw new NotFoundError("Payment request");
  const resource = await presentPaymentRequest(sql, updated, settings, now);
  await appendRequestEvents(
    sql,
    input.merchantId,
    ["payment_request.canceled"],
    resource,
    input.idempotencyKey ?? null,
  );
  return resource;
}
