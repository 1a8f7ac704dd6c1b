import { AppError } from "@mp/core";
import { parseRate, type RateProvider } from "@mp/providers";
import { USD_CURRENCY } from "./request-amount.ts";

/** An accepted option before it is priced: the asset on its chain and the address that receives it. */
export interface OptionAsset {
  chain: string;
  asset: string;
  decimals: number;
  /** The token's contract (EVM, Tron) or mint (Solana); null for the chain's native coin. */
  contractAddress: string | null;
  destinationId: string;
  address: string;
}

/** An option priced at the locked rate: what the whole request costs in its asset. */
export interface QuotedOption extends OptionAsset {
  amountDue: bigint;
  /** The USD rate the amount was computed at (USD per whole unit); null when the request is in this asset. */
  usdRate: string | null;
}

/** What a request asks for: an amount of its currency (USD or a crypto asset), in smallest units. */
export interface RequestedAmount {
  currency: string;
  currencyDecimals: number;
  amount: bigint;
}

/**
 * The rate provider's USD rate of each asset a USD request accepts, asked outside any transaction
 * (a provider call never holds a connection); none for a request in a crypto asset. A rate that
 * cannot be had throws the provider's error (503 RateUnavailableError, retryable).
 */
export async function fetchUsdRates(
  rates: RateProvider,
  currency: string,
  assets: Iterable<string>,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (currency !== USD_CURRENCY.currency) return out;
  for (const asset of new Set(assets)) out.set(asset, (await rates.rateFor(asset)).rate);
  return out;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/**
 * What the whole request costs in each option's asset, exactly: a USD amount at the asset's USD rate,
 * rounded up to the asset's smallest unit (the payer never pays less than asked); an amount of the
 * option's own asset as is (its decimals are at least the request's).
 */
export function priceOptions(
  request: RequestedAmount,
  options: readonly OptionAsset[],
  usdRates: ReadonlyMap<string, string>,
): QuotedOption[] {
  return options.map((option) => {
    if (request.currency !== USD_CURRENCY.currency) {
      if (option.asset !== request.currency || option.decimals < request.currencyDecimals) {
        throw new AppError("internal_error", `${option.asset} cannot pay a request in ${request.currency}`);
      }
      const amountDue = request.amount * 10n ** BigInt(option.decimals - request.currencyDecimals);
      return { ...option, amountDue, usdRate: null };
    }
    const usdRate = usdRates.get(option.asset);
    const rate = usdRate === undefined ? null : parseRate(usdRate);
    if (!usdRate || !rate || rate.units === 0n) {
      throw new AppError("internal_error", `no usable USD rate for ${option.asset}`);
    }
    // amount / 10^cd USD at units / 10^scale USD per whole unit, in units of 10^-decimals.
    const amountDue = ceilDiv(
      request.amount * 10n ** BigInt(option.decimals) * 10n ** BigInt(rate.scale),
      rate.units * 10n ** BigInt(request.currencyDecimals),
    );
    return { ...option, amountDue, usdRate };
  });
}

/** The end of a rate lock taken at `now`: `lockSeconds` later, never past the request's expiry. */
export function rateLockEnd(now: Date, lockSeconds: number, expiresAt: Date): Date {
  return new Date(Math.min(now.getTime() + lockSeconds * 1000, expiresAt.getTime()));
}
