import { randomBytes } from "node:crypto";
import type { Queryable } from "@mp/db";
import { PAYMENT_REQUEST_COLUMNS, type PaymentRequestRow } from "./request-resource.ts";

/**
 * The hosted page's id: 128 random bits, base64url (22 characters) after a `ck_` prefix. It is all a
 * payer needs to see the page, and tells nothing of the merchant or of the request's API id.
 */
export function newCheckoutToken(): string {
  return `ck_${randomBytes(16).toString("base64url")}`;
}

/** The shape of a token (a page asking for anything else is a 404 without a query). */
export const CHECKOUT_TOKEN_PATTERN = /^ck_[A-Za-z0-9_-]{22}$/;

/** A request as its hosted page reads it: with its merchant's name. */
export type CheckoutRow = PaymentRequestRow & { merchant_name: string };

/** The request behind a checkout token (any shape: a malformed one is simply not found), with its merchant's name. */
export async function findCheckoutRow(sql: Queryable, token: string): Promise<CheckoutRow | undefined> {
  if (!CHECKOUT_TOKEN_PATTERN.test(token)) return undefined;
  const { rows } = await sql.query<CheckoutRow>(
    `SELECT r.*, m.name AS merchant_name
       FROM (SELECT ${PAYMENT_REQUEST_COLUMNS} FROM payment_requests WHERE checkout_token = $1) r
       JOIN merchants m ON m.id = r.merchant_id`,
    [token],
  );
  return rows[0];
}
