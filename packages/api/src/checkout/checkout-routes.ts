import { randomBytes } from "node:crypto";
import { CHAIN_IDS, NotFoundError } from "@mp/core";
import {
  type CheckoutView,
  checkoutView,
  findCheckoutRow,
  PAYMENT_FLAGS,
  PAYMENT_REQUEST_STATUSES,
  requoteIfLapsed,
} from "@mp/payment-requests";
import { z } from "zod";
import type { AppDeps } from "../deps.ts";
import { defineRoute } from "../http/route.ts";
import { seenPaymentFields } from "../payment-requests/payment-request-schemas.ts";
import { presentSettings } from "../payment-requests/payment-request-store.ts";
import { checkoutHeaders, checkoutPage, unknownCheckoutPage } from "./checkout-page.ts";
import { qrSvg } from "./qr-svg.ts";

const tokenParams = z.object({ token: z.string().max(200) });
const qrParams = z.object({ token: z.string().max(200), network: z.enum(CHAIN_IDS), asset: z.string().max(20) });

export const checkoutViewSchema = z.object({
  merchant_name: z.string(),
  status: z.enum(PAYMENT_REQUEST_STATUSES),
  amount: z.string(),
  currency: z.string(),
  description: z.string().nullable(),
  amount_paid: z.string(),
  amount_pending: z.string(),
  amount_missing: z.string(),
  amount_excess: z.string(),
  rate_locked_until: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  quote_version: z.number().int().describe("Moves on at each re-quote"),
  now: z.iso.datetime().describe("The server's clock, for the countdown"),
  options: z
    .array(
      z.object({
        network: z.enum(CHAIN_IDS),
        asset: z.string(),
        address: z.string(),
        amount_due: z.string(),
        amount_missing: z.string(),
        payment_uri: z.string(),
      }),
    )
    .describe("Only while the request can be paid (open, processing, underpaid): an ended request refuses its rate"),
  payments: z.array(
    z.object({
      ...seenPaymentFields,
      counted: z.boolean(),
      flag: z.enum(PAYMENT_FLAGS).nullable(),
    }),
  ),
  success_url: z.string().nullable().describe("Once paid"),
  cancel_url: z.string().nullable().describe("While payable"),
});

/**
 * The request behind a page's token as the page shows it now: a rate lock that lapsed while nothing
 * was paid is renewed first (the payer is looking); a rate that cannot be had leaves the old quote
 * shown as lapsed ("Updating the rate"), retried at the next look. Undefined for an unknown token.
 */
async function freshView(deps: AppDeps, token: string): Promise<CheckoutView | undefined> {
  let row = await findCheckoutRow(deps.db, token);
  if (!row) return undefined;
  const renewed = await requoteIfLapsed(deps.db, deps.rates, row, deps.paymentRequests.rateLockSeconds).catch(
    (error: unknown) => {
      deps.logger.warn({ err: String(error) }, "payment request not re-quoted; the page retries");
      return false;
    },
  );
  if (renewed) row = (await findCheckoutRow(deps.db, token)) ?? row;
  return checkoutView(deps.db, row, presentSettings(deps));
}

export const checkoutPageRoute = defineRoute({
  method: "get",
  path: "/pay/{token}",
  operationId: "checkoutPage",
  summary:
    "The hosted page of a payment request (public: its id is the unguessable token of hosted_url): choose an asset, the address with a QR code, the amount, the rate's countdown, the live status. An unknown token is a 404 page",
  tag: "Checkout",
  auth: false,
  limitPerClient: true,
  params: tokenParams,
  rawContentType: "text/html",
  rawErrorStatuses: [404],
  response: z.string(),
  successStatus: 200,
  async handler({ params, deps }) {
    const nonce = randomBytes(16).toString("base64");
    const view = await freshView(deps, params.token);
    const headers = checkoutHeaders(nonce);
    if (!view)
      return {
        status: 404,
        data: undefined,
        headers,
        raw: { contentType: "text/html", body: unknownCheckoutPage(nonce) },
      };
    return {
      status: 200,
      data: undefined,
      headers,
      raw: { contentType: "text/html", body: checkoutPage(params.token, view, nonce) },
    };
  },
});

export const checkoutStatusRoute = defineRoute({
  method: "get",
  path: "/pay/{token}/status",
  operationId: "getCheckoutStatus",
  summary:
    "What the hosted page shows, for its polling (public): status, amounts, options while payable, payments with their confirmations; nothing else of the request",
  tag: "Checkout",
  auth: false,
  limitPerClient: true,
  params: tokenParams,
  response: checkoutViewSchema,
  successStatus: 200,
  errorStatuses: [404],
  async handler({ params, deps }) {
    const view = await freshView(deps, params.token);
    if (!view) throw new NotFoundError("Payment request");
    return { status: 200, data: view, headers: { "Cache-Control": "no-store" } };
  },
});

export const checkoutQrRoute = defineRoute({
  method: "get",
  path: "/pay/{token}/qr/{network}/{asset}",
  operationId: "getCheckoutQrCode",
  summary:
    "The QR code (SVG, drawn by this service) of an option's payment URI, for what is missing now; 404 once the request cannot be paid",
  tag: "Checkout",
  auth: false,
  limitPerClient: true,
  params: qrParams,
  rawContentType: "image/svg+xml",
  response: z.string(),
  successStatus: 200,
  errorStatuses: [404],
  async handler({ params, deps }) {
    const row = await findCheckoutRow(deps.db, params.token);
    const view = row && (await checkoutView(deps.db, row, presentSettings(deps)));
    const option = view?.options.find((o) => o.network === params.network && o.asset === params.asset);
    if (!option) throw new NotFoundError("Payment option");
    return {
      status: 200,
      data: undefined,
      headers: { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
      raw: { contentType: "image/svg+xml", body: qrSvg(option.payment_uri, `QR code of ${option.payment_uri}`) },
    };
  },
});

export const checkoutRoutes = [checkoutPageRoute, checkoutStatusRoute, checkoutQrRoute];
