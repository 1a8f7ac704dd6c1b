import { formatUsd, isAppError, toUsdMicros } from "@mp/core";
import type { Queryable } from "@mp/db";
import { getMerchantBalance } from "@mp/ledger";
import { type RateProvider, RateUnavailableError } from "@mp/providers";
import { pendingByAsset } from "../deposits/deposit-store.ts";

/** The merchant's USD balance as `GET /v1/balance` and the dashboard show it: decimal strings. */
export interface MerchantBalance {
  currency: "USD";
  available: string;
  reserved: string;
  held: string;
  pending: string;
}

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

/** Available, reserved and held from the ledger's entries; pending from uncredited deposits at current rates. */
export async function merchantBalance(
  sql: Queryable,
  rates: RateProvider,
  merchantId: string,
): Promise<MerchantBalance> {
  const ledger = await getMerchantBalance(sql, merchantId);
  let pending = 0n;
  for (const group of await pendingByAsset(sql, merchantId)) {
    const rate = await currentRate(rates, group.asset);
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
}
