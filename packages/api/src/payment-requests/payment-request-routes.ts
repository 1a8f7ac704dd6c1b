import { randomUUID } from "node:crypto";
import { ValidationError } from "@mp/core";
import {
  cancelPaymentRequest,
  fetchUsdRates,
  findPaymentRequest,
  insertPaymentRequest,
  parseRequestAmount,
  priceOptions,
  type QuotedOption,
  rateLockEnd,
} from "@mp/payment-requests";
import { assertAboveMinimum, minimumOf } from "@mp/transfers";
import { defineIdempotentPost, defineStateChangeRoute } from "../http/idempotent-routes.ts";
import { defineGetRoute, defineListRoute } from "../http/read-routes.ts";
import type { Reservation } from "../http/route.ts";
import type { ReservedWalletSlot } from "../wallets/wallet-slots.ts";
import { createWallet } from "../wallets/wallet-store.ts";
import { type AcceptedAsset, acceptedAssets, currencyDecimals } from "./accepted-assets.ts";
import {
  createPaymentRequestBody,
  listPaymentRequestsQuery,
  paymentRequestIdParams,
  paymentRequestResource,
} from "./payment-request-schemas.ts";
import { listPaymentRequests, presentSettings } from "./payment-request-store.ts";

/** The longest a request may stay open. */
const MAX_TTL_SECONDS = 30 * 24 * 3600;
const MIN_TTL_SECONDS = 60;

/** What POST /v1/payment-requests settled before its transaction: the priced assets and the wallet slot. */
interface PreparedRequest extends Reservation {
  assets: AcceptedAsset[];
  usdRates: Map<string, string>;
  amount: bigint;
  currencyDecimals: number;
  expiresAt: Date;
  slot: ReservedWalletSlot;
}

/** Prices assets with placeholder addresses: what each costs, to check it against its chain's minimum. */
function priced(
  assets: readonly AcceptedAsset[],
  amount: bigint,
  currency: string,
  decimals: number,
  rates: Map<string, string>,
) {
  const options = assets.map((a) => ({ ...a, destinationId: "", address: "" }));
  return priceOptions({ currency, currencyDecimals: decimals, amount }, options, rates);
}

/** The minimum of an option's chain (dust, rent, activation, a cent of value). */
const minimumFor = (o: QuotedOption) =>
  minimumOf({ asset: o.asset, network: o.chain, decimals: o.decimals, usdRate: o.usdRate ?? undefined });

export const createPaymentRequestRoute = defineIdempotentPost({
  path: "/v1/payment-requests",
  operationId: "createPaymentRequest",
  summary:
    "Ask for an amount (USD, or a crypto asset): each accepted asset gets a fresh address of ours and its amount at a rate locked for PAYMENT_REQUEST_RATE_LOCK_SECONDS; the payer pays on hosted_url. An amount below a named option's chain minimum is 422 amount_below_minimum (default options below it are left out); a rejected customer 422 customer_not_verified",
  tag: "Payment requests",
  writesOnlyThroughSql: true,
  body: createPaymentRequestBody,
  response: paymentRequestResource,
  successStatus: 201,
  errorStatuses: [404, 409, 422, 503],
  message: "Payment request created",
  // Rates are asked and the wallet slot reserved before the transaction (never a provider call in
  // one); the slot last, so a refusal before it leaves nothing to give back.
  async prepare({ merchant, body, deps }): Promise<PreparedRequest> {
    const { assets: wanted, named } = acceptedAssets(deps.chains, body);
    const decimals = currencyDecimals(body.currency, wanted);
    const amount = parseRequestAmount(body.amount, decimals);
    if (amount === null || amount <= 0n) {
      throw new ValidationError(`amount: a positive amount with at most ${decimals} decimals`, "amount");
    }
    const now = Date.now();
    const expiresAt = new Date(body.expires_at ?? now + deps.paymentRequests.defaultTtlSeconds * 1000);
    const ttl = (expiresAt.getTime() - now) / 1000;
    if (ttl < MIN_TTL_SECONDS || ttl > MAX_TTL_SECONDS) {
      throw new ValidationError("expires_at: from 1 minute to 30 days ahead", "expires_at");
    }
    let assets = wanted;
    let usdRates: Map<string, string>;
    if (named)
      usdRates = await fetchUsdRates(
        deps.rates,
        body.currency,
        wanted.map((a) => a.asset),
      );
    else {
      // By default, an asset without a rate now (or below its chain's minimum) is simply not offered.
      usdRates = new Map();
      for (const asset of new Set(wanted.map((a) => a.asset))) {
        const rate = await fetchUsdRates(deps.rates, body.currency, [asset]).catch((error: unknown) => {
          deps.logger.warn({ asset, err: String(error) }, "no rate: the asset is left out of a payment request");
          return undefined;
        });
        for (const [key, value] of rate ?? []) usdRates.set(key, value);
      }
      if (body.currency === "USD") assets = assets.filter((a) => usdRates.has(a.asset));
    }
    const quoted = priced(assets, amount, body.currency, decimals, usdRates);
    if (named)
      for (const o of quoted)
        assertAboveMinimum("amount", { ...o, network: o.chain, usdRate: o.usdRate ?? undefined }, o.amountDue);
    else assets = assets.filter((_, i) => (quoted[i]?.amountDue ?? 0n) >= minimumFor(quoted[i] as QuotedOption).units);
    if (assets.length === 0) {
      throw new ValidationError("amount: too small for every configured asset (below each chain's minimum)", "amount");
    }
    const slot = await deps.walletSlots.reserve(merchant.merchantId);
    return { assets, usdRates, amount, currencyDecimals: decimals, expiresAt, slot, release: () => slot.release() };
  },
  async perform({ merchant, body, sql, deps, prepared, idempotencyKey }) {
    const id = randomUUID();
    const wallet = await createWallet(sql, {
      merchantId: merchant.merchantId,
      customerId: body.customer_id ?? null,
      label: `Payment request ${id}`,
      slot: prepared.slot.slot,
      addresses: prepared.slot.addresses,
      purpose: "PAYMENT_REQUEST",
    });
    const options = prepared.assets.map((asset) => {
      const destination = wallet.destinations.find((d) => d.chain === asset.chain);
      if (!destination) throw new Error(`the request's wallet has no ${asset.chain} address`);
      return { ...asset, destinationId: destination.id, address: destination.address };
    });
    const request = { currency: body.currency, currencyDecimals: prepared.currencyDecimals, amount: prepared.amount };
    const now = new Date();
    return insertPaymentRequest(
      sql,
      {
        ...request,
        id,
        merchantId: merchant.merchantId,
        walletId: wallet.id,
        customerId: body.customer_id ?? null,
        description: body.description ?? null,
        reference: body.reference ?? null,
        metadata: body.metadata ?? {},
        successUrl: body.success_url ?? null,
        cancelUrl: body.cancel_url ?? null,
        expiresAt: prepared.expiresAt,
        // A request in a crypto asset has no rate to lock: its amounts hold until it expires.
        rateLockedUntil:
          body.currency === "USD"
            ? rateLockEnd(now, deps.paymentRequests.rateLockSeconds, prepared.expiresAt)
            : prepared.expiresAt,
        options: priceOptions(request, options, prepared.usdRates),
        idempotencyKey,
      },
      presentSettings(deps),
    );
  },
});

export const listPaymentRequestsRoute = defineListRoute({
  path: "/v1/payment-requests",
  operationId: "listPaymentRequests",
  summary: "List payment requests, newest first (filters: status, reference, customer_id, created range)",
  tag: "Payment requests",
  item: paymentRequestResource,
  filters: listPaymentRequestsQuery,
  list: ({ merchant, query, sql, deps }) => listPaymentRequests(sql, merchant.merchantId, query, presentSettings(deps)),
});

export const getPaymentRequestRoute = defineGetRoute({
  path: "/v1/payment-requests/{id}",
  operationId: "getPaymentRequest",
  summary: "Retrieve one payment request with its options and payments (live confirmations)",
  tag: "Payment requests",
  params: paymentRequestIdParams,
  response: paymentRequestResource,
  notFound: "Payment request",
  find: ({ merchant, params, sql, deps }) =>
    findPaymentRequest(sql, merchant.merchantId, params.id, presentSettings(deps)),
});

export const cancelPaymentRequestRoute = defineStateChangeRoute({
  path: "/v1/payment-requests/{id}/cancel",
  operationId: "cancelPaymentRequest",
  summary:
    "Cancel an open or underpaid request (what was paid stays credited); one being paid, paid or ended is 409. Later money is credited and flagged late",
  tag: "Payment requests",
  params: paymentRequestIdParams,
  response: paymentRequestResource,
  message: "Payment request canceled",
  perform: ({ merchant, params, sql, deps, idempotencyKey }) =>
    cancelPaymentRequest(
      sql,
      { merchantId: merchant.merchantId, id: params.id, idempotencyKey },
      presentSettings(deps),
    ),
});

export const paymentRequestRoutes = [
  createPaymentRequestRoute,
  listPaymentRequestsRoute,
  getPaymentRequestRoute,
  cancelPaymentRequestRoute,
];
