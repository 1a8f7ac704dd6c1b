import { randomUUID } from "node:crypto";
import { decimalToUnits, ValidationError } from "@mp/core";
import { assertExternalDestination } from "@mp/custody";
import {
  assertAboveMinimum,
  assertTransferAllowed,
  feeScheduleOf,
  findQuote,
  insertQuote,
  priceQuote,
  toQuoteResource,
  travelRuleBeneficiary,
} from "@mp/transfers";
import { defineIdempotentPost } from "../http/idempotent-routes.ts";
import { defineGetRoute } from "../http/read-routes.ts";
import type { Reservation } from "../http/route.ts";
import { type QuoteAssets, resolveQuoteAssets } from "./quote-assets.ts";
import { createQuoteBody, quoteIdParams, quoteResource } from "./quote-schemas.ts";
import { refuseSanctionedPayee } from "./refuse-sanctioned-payee.ts";

/** What a quote request reserved before its transaction: nothing to give back, the provider's USD rates. */
interface QuoteRates extends Reservation {
  assets: QuoteAssets;
  sourceUsdRate: string;
  destinationUsdRate: string;
}

export const createQuoteRoute = defineIdempotentPost({
  path: "/v1/quotes",
  operationId: "createQuote",
  summary:
    "Quote a transfer: source (BANK_TRANSFER, CRYPTO_DEPOSIT of an asset on a network, BALANCE), destination (crypto address or US bank account) and one amount -> immutable rate, amounts and fee until expires_at. A crypto amount below its chain's minimum (Bitcoin dust 546 sat, Solana rent-exempt 0.00089088 SOL, 1 TRX, one cent of value) is 422 amount_below_minimum naming the minimum; a customer not verified for it 422 customer_not_verified; a destination address on a sanctions list 422 destination_sanctioned; a crypto payout worth TRAVEL_RULE_THRESHOLD_USD (3,000 USD unless set) or more without destination.beneficiary 422 beneficiary_required",
  tag: "Transfers",
  body: createQuoteBody,
  response: quoteResource,
  successStatus: 201,
  errorStatuses: [404, 409, 422, 503],
  message: "Quote created",
  // The rate provider is asked before the transaction opens: never a provider call inside one.
  async prepare({ deps, body, merchant }): Promise<QuoteRates> {
    const assets = resolveQuoteAssets(deps, body);
    await refuseSanctionedPayee(deps, merchant.merchantId, body.destination);
    const usdRate = async (asset: string) => (asset === "USD" ? "1" : (await deps.rates.rateFor(asset)).rate);
    return {
      assets,
      sourceUsdRate: await usdRate(assets.source.asset),
      destinationUsdRate: await usdRate(assets.destination.asset),
      release() {},
    };
  },
  async perform({ merchant, body, sql, deps, prepared }) {
    const { assets } = prepared;
    // Never a payout to an address of ours (issue 27): 422 destination_internal.
    if (body.destination.type === "CRYPTO_ADDRESS") {
      await assertExternalDestination(sql, body.destination.network, body.destination.address);
    }
    await assertTransferAllowed(
      sql,
      merchant.merchantId,
      body.customer_id,
      assets.source.method,
      assets.destination.kind,
    );
    const side = body.source_amount !== undefined ? "source" : "destination";
    const text = body.source_amount ?? body.destination_amount ?? "";
    const decimals = side === "source" ? assets.source.decimals : assets.destination.decimals;
    const value = decimalToUnits(text, decimals);
    if (value === null) {
      throw new ValidationError(`${side}_amount: at most ${decimals} decimals`, `${side}_amount`);
    }
    const fee = await feeScheduleOf(sql, merchant.merchantId, {
      fixedUsdMicros: deps.transfers.feeFixedUsdMicros,
      bps: deps.transfers.feeBps,
    });
    const source = { ...assets.source, usdRate: prepared.sourceUsdRate };
    const destination = { ...assets.destination, usdRate: prepared.destinationUsdRate };
    const priced = priceQuote({
      source,
      destination,
      amount: { side, value },
      spreadBps: deps.transfers.spreadBps,
      fee,
    });
    // Never a quote the treasury could not pay out, nor one a payer could not fund (quote-minimums.ts).
    if (destination.kind === "CRYPTO_ADDRESS") {
      assertAboveMinimum("destination_amount", destination, priced.destinationAmount);
    }
    if (source.method === "CRYPTO_DEPOSIT") assertAboveMinimum("source_amount", source, priced.sourceAmount);
    // Travel rule: at or above the threshold the beneficiary is required and kept; below it, nothing is.
    const beneficiary = travelRuleBeneficiary({
      destinationKind: destination.kind,
      destinationUsdMicros: priced.destinationUsdMicros,
      thresholdUsdMicros: deps.transfers.travelRuleThresholdUsdMicros,
      beneficiary: body.destination.type === "CRYPTO_ADDRESS" ? body.destination.beneficiary : undefined,
    });
    const row = await insertQuote(sql, deps.encryption, {
      id: randomUUID(),
      merchantId: merchant.merchantId,
      customerId: body.customer_id,
      source,
      destination: { ...destination, beneficiary },
      priced,
      spreadBps: deps.transfers.spreadBps,
      fee,
      ttlSeconds: deps.transfers.quoteTtlSeconds,
    });
    return toQuoteResource(row);
  },
});

export const getQuoteRoute = defineGetRoute({
  path: "/v1/quotes/{quote_id}",
  operationId: "getQuote",
  summary: "Retrieve one quote",
  tag: "Transfers",
  params: quoteIdParams,
  response: quoteResource,
  errorStatuses: [404],
  notFound: "Quote",
  find: async ({ merchant, params, sql }) => {
    const row = await findQuote(sql, merchant.merchantId, params.quote_id);
    return row ? toQuoteResource(row) : undefined;
  },
});

export const quoteRoutes = [createQuoteRoute, getQuoteRoute];
