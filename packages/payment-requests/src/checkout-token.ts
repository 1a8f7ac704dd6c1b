import { randomBytes } from "node:crypto";

/**
 * The hosted page's id: 128 random bits, base64url (22 characters) after a `ck_` prefix. It is all a
 * payer needs to see the page, and tells nothing of the merchant or of the request's API id.
 */
export function newCheckoutToken(): string {
  return `ck_${randomBytes(16).toString("base64url")}`;
}

/** The shape of a token (a page asking for anything else is a 404 without a query). */
export const CHECKOUT_TOKEN_PATTERN = /^ck_[A-Za-z0-9_-]{22}$/;
