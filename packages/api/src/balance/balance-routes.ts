import { formatUsd, toUsdMicros, USD_STABLECOINS } from "@mp/core";
import { getMerchantBalance } from "@mp/ledger";
import { z } from "zod";
import { pendingByAsset } from "../deposits/deposit-store.ts";
import { defineRoute } from "../http/route.ts";

const balanceResource = z.object({
  currency: z.literal("USD"),
  available: z.string().describe("Spendable: credited deposits net of fees, minus reserved"),
  reserved: z.string().describe("Reserved for payouts in flight"),
  held: z
    .string()
    .describe(
      "Confirmed deposits held out of available (a rejected customer's) until an operator releases or returns them",
    ),
  pending: z.string().describe("Unconfirmed deposits at current rates; never part of available"),
});

export const getBalanceRoute = defineRoute({
  method: "get",
  path: "/v1/balance",
  operationId: "getBalance",
  summary: "The merchant's USD balance: available, reserved, held and pending",
  tag: "Balance",
  auth: true,
  response: balanceResource,
  successStatus: 200,
  errorStatuses: [503],
  async handler({ merchant, sql, deps }) {
    const ledger = await getMerchantBalance(sql, merchant.merchantId);
    let pending = 0n;
    for (const group of await pendingByAsset(sql, merchant.merchantId)) {
      const rate = USD_STABLECOINS.has(group.asset) ? "1" : (await deps.rates.rateFor(group.asset)).rate;
      pending += toUsdMicros(group.amountRaw, group.decimals, rate);
    }
    return {
      status: 200,
      data: {
        currency: "USD",
        available: formatUsd(ledger.available),
        reserved: formatUsd(ledger.reserved),
        held: formatUsd(ledger.held),
        pending: formatUsd(pending),
      },
    };
  },
});

export const balanceRoutes = [getBalanceRoute];
