import { iso } from "@mp/core";
import { z } from "zod";
import { defineRoute, type RouteDefinition } from "../http/route.ts";

const rateResource = z.object({
  from_currency: z.string(),
  to_currency: z.string(),
  rate: z.string().describe("Decimal string: units of to_currency per one from_currency"),
  expires_at: z.iso.datetime().describe("When the rate stops being used: its source's staleness limit"),
  source: z
    .string()
    .describe(
      "Where the rate comes from: chainlink:<feed address>, kraken:<pair>, median(<source>,...) when sources are combined, sandbox for the sandbox's fixed rates",
    ),
});
const ratesResponse = z.object({ items: z.array(rateResource) });

const listRates: RouteDefinition["handler"] = async ({ deps }) => {
  const rates = await deps.rates.listRates();
  return {
    status: 200,
    data: {
      items: rates.map((r) => ({
        from_currency: r.fromCurrency,
        to_currency: r.toCurrency,
        rate: r.rate,
        expires_at: iso(r.expiresAt),
        source: r.source,
      })),
    },
  };
};

export const ratesRoute = defineRoute({
  method: "get",
  path: "/v1/rates",
  operationId: "listRates",
  summary: "Current USD conversion rates, each with its expiry and source (an asset with no usable rate is left out)",
  tag: "Rates",
  auth: true,
  response: ratesResponse,
  successStatus: 200,
  errorStatuses: [503],
  handler: listRates,
});

/** The earlier public form of the rates endpoint, kept for old integrations; marked deprecated. */
export const legacyRatesRoute = defineRoute({
  method: "get",
  path: "/api/rates",
  operationId: "listRatesLegacy",
  summary: "Deprecated public alias of GET /v1/rates",
  tag: "Rates",
  auth: false,
  limitPerClient: true,
  deprecated: true,
  response: ratesResponse,
  successStatus: 200,
  async handler(context) {
    const reply = await listRates(context);
    return { ...reply, headers: { Deprecation: "true", Link: '</v1/rates>; rel="successor-version"' } };
  },
});

export const rateRoutes = [ratesRoute, legacyRatesRoute];
