import { USD_STABLECOINS } from "@mp/core";
import { formatRate, parseRate, rateUnits } from "./rate-decimal.ts";

/**
 * Stablecoins are priced like any asset in production (a USDC/USD feed, a USDC/USD ticker), never
 * assumed to be 1. A market answer within `bandBps` of 1 is taken as exactly "1": 0.9998 USD per
 * USDC is market noise, not a loss to book on every deposit. Outside the band the market rate
 * stands (a depeg is valued as such), and the provider's bounds decide whether it is refused.
 */
export const DEFAULT_PAR_BAND_BPS = 50;

export interface StablecoinPar {
  /** Assets the band applies to; default USD_STABLECOINS (USDC, USDT, USDC.e). */
  stablecoins?: ReadonlySet<string>;
  /** Default DEFAULT_PAR_BAND_BPS (0.50 %); 0 turns rounding to par off. */
  parBandBps?: number;
}

/** `rate` rounded to "1" when `asset` is a stablecoin within the band, else `rate` unchanged. */
export function roundToPar(asset: string, rate: string, options: StablecoinPar = {}): string {
  if (!(options.stablecoins ?? USD_STABLECOINS).has(asset)) return rate;
  const parsed = parseRate(rate);
  if (!parsed) return rate;
  const band = BigInt(options.parBandBps ?? DEFAULT_PAR_BAND_BPS);
  const one = rateUnits({ units: 1n, scale: 0 }, parsed.scale);
  const distance = parsed.units > one ? parsed.units - one : one - parsed.units;
  // |rate - 1| <= band / 10_000, in integers at the rate's own scale.
  return distance * 10_000n <= band * one ? formatRate(one, parsed.scale) : rate;
}
