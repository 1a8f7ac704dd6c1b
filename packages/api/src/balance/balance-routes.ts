import { formatUsd, isAppError, toUsdMicros } from "@mp/core";
import { getMerchantBalance } from "@mp/ledger";
import { type RateProvider, RateUnavailableError } from "@mp/providers";
import { z } from "zod";
import { pendingByAsset } from "../deposits/deposit-store.ts";
import { defineReadRoute } from "../http/read-routes.ts";

const balanceResource = z.object({
  currency: z.literal("USD"),
  available: z.string().describe("Spendable: credited deposits net of fees, minus reserved"),
  reserved: z.string().describe("Reserved for payouts in flight"),
  held: z
    .string()
    .describe(
      "Confirmed deposits held out of available (a rejected customer's) until an operator releases or returns them",
    ),
  pending: z
    .string()
    .describe("Uncredited deposits at current rates (an asset without a rate is left out); never part of available"),
});

/**
 * The provider's rate for `asset` (stablecoins too: the sandbox quotes them at 1, production from
 * the market), or undefined when there is no usable one: a configured token it does not quote (a
 * non-retryable answer) or a RateUnavailableError (a stale, refused or unreachable feed), exactly
 * the rates a deposit would wait for (awaiting_rate). Anything else stays an error.
 */
async function currentRate(rates: RateProvider, asset: string): Promise<string | undefined> {
  try {
    return (await rates.rateFor(asset)).rate;
  } catch (error) {
    if (error instanceof RateUnavailableError || (isAppError(error) && !error.retryable)) return undefined;
    throw error;
  }
}

export const getBalanceRoute = defineReadRoute(
  {
    path: "/v1/balance",
    operationId: "getBalance",
    summary: "The merchant's USD balance: available, reserved, held and pending",
    tag: "Balance",
    response: balanceResource,
    errorStatuses: [503],
  },
  async ({ merchant, sql, deps }) => {
    const ledger = await getMerchantBalance(sql, merchant.merchantId);
    let pending = 0n;
    for (const group of await pendingByAsset(sql, merchant.merchantId)) {
      const rate = await currentRate(deps.rates, group.asset);
      // An asset with no usable rate cannot be valued: left out, never guessed (its deposits wait in awaiting_rate).
      if (rate !== undefined) pending += toUsdMicros(group.amountRaw, group.decimals, rate);
    }
    return {
      currency: "USD",
      available: formatUsd(ledger.available),
      reserved: formatUsd(ledger.reserved),
      held: formatUsd(ledger.held),
      pending: formatUsd(pending),
    };
  },
);

export const balanceRoutes = [getBalanceRoute];
