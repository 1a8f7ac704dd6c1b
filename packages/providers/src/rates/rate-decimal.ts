import { decimalToUnits, unitsToDecimal } from "@mp/core";

/**
 * Exact arithmetic on rate strings (plain decimals, USD per unit): each is read as an integer at
 * its own scale and compared or averaged as bigints, never as floats.
 */
const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;

export interface ScaledRate {
  units: bigint;
  scale: number;
}

/** A plain non-negative decimal ("61027.50000"), or null (exponents, signs, blanks). */
export function parseRate(rate: string): ScaledRate | null {
  if (!PLAIN_DECIMAL.test(rate)) return null;
  const dot = rate.indexOf(".");
  const scale = dot === -1 ? 0 : rate.length - dot - 1;
  const units = decimalToUnits(rate, scale);
  return units === null ? null : { units, scale };
}

function mustParse(rate: string): ScaledRate {
  const parsed = parseRate(rate);
  if (!parsed) throw new RangeError(`invalid rate ${rate}`);
  return parsed;
}

/** `rate` as an integer at `scale` fractional digits (scale >= the rate's own). */
export function rateUnits(rate: ScaledRate, scale: number): bigint {
  return rate.units * 10n ** BigInt(scale - rate.scale);
}

/** The shortest plain decimal for `units` at `scale`: trailing zeros and a bare point dropped. */
export function formatRate(units: bigint, scale: number): string {
  return unitsToDecimal(units, scale, 0);
}

/** -1, 0 or 1 as a < b, a = b, a > b. */
export function compareRates(a: string, b: string): number {
  const [x, y] = [mustParse(a), mustParse(b)];
  const scale = Math.max(x.scale, y.scale);
  const diff = rateUnits(x, scale) - rateUnits(y, scale);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}

/** The median (the mean of the two middle values for an even count), exact: one more digit at most. */
export function medianRate(rates: readonly string[]): string {
  if (rates.length === 0) throw new RangeError("median of no rates");
  const parsed = rates.map(mustParse);
  const scale = Math.max(...parsed.map((r) => r.scale)) + 1;
  const sorted = sortedUnits(parsed, scale);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0n;
  // One extra digit of scale makes the mean of two integers exact: (a + b) / 2 at scale + 1 is whole
  // whenever a and b carry a trailing zero, which the extra digit gives them.
  const median = sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? 0n) + upper) / 2n;
  return formatRate(median, scale);
}

/** (max - min) / median > maxBps / 10_000, decided in integers. */
export function spreadExceeds(rates: readonly string[], maxBps: number): boolean {
  const median = mustParse(medianRate(rates));
  const parsed = rates.map(mustParse);
  const scale = Math.max(median.scale, ...parsed.map((r) => r.scale));
  const sorted = sortedUnits(parsed, scale);
  const [min, max] = [sorted[0] ?? 0n, sorted[sorted.length - 1] ?? 0n];
  return (max - min) * 10_000n > BigInt(maxBps) * rateUnits(median, scale);
}

function sortedUnits(rates: readonly ScaledRate[], scale: number): bigint[] {
  return rates.map((r) => rateUnits(r, scale)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
