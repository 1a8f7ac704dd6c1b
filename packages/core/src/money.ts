/**
 * Money is an integer count of an asset's smallest units (bigint) inside the service, and a decimal
 * string at the edge. No float ever holds an amount.
 */

/** USD amounts in the ledger are micro-dollars: 6 fractional digits. */
export const USD_DECIMALS = 6;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * Named for what they do, unlike viem's formatUnits/parseUnits (which the chain code also imports
 * and which behave differently: viem's never pads and its parse rounds).
 *
 * Renders `raw` smallest units as a decimal string with at least `minFractionDigits` fractional
 * digits, more only where the asset has non-zero digits beyond them (never rounded):
 * 12_500000n (6 dp) -> "12.500000", 123n (18 dp) -> "0.000000000000000123".
 */
export function unitsToDecimal(raw: bigint, decimals: number, minFractionDigits = 6): string {
  const negative = raw < 0n;
  const abs = negative ? -raw : raw;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  let fraction = decimals > 0 ? (abs % base).toString().padStart(decimals, "0") : "";
  fraction = fraction.replace(/0+$/, "");
  if (fraction.length < minFractionDigits) fraction = fraction.padEnd(minFractionDigits, "0");
  const body = fraction.length > 0 ? `${whole}.${fraction}` : whole.toString();
  return negative ? `-${body}` : body;
}

/** USD micro-units as the 6-digit decimal string of the API. */
export function formatUsd(micros: bigint): string {
  return unitsToDecimal(micros, USD_DECIMALS, USD_DECIMALS);
}

/**
 * Parses a non-negative decimal string into smallest units. Returns null when the string is not a
 * plain decimal or has more fractional digits than the asset allows (no silent rounding).
 */
export function decimalToUnits(value: string, decimals: number): bigint | null {
  const match = DECIMAL.exec(value.trim());
  if (!match) return null;
  const whole = match[1] ?? "0";
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) return null;
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/**
 * Converts an amount of an asset to USD micro-units at `rate` (a decimal string, USD per whole
 * unit). Rounds half-up to the micro-dollar, the only rounding the service does, and it is recorded
 * alongside the rate used.
 */
export function toUsdMicros(raw: bigint, decimals: number, rate: string): bigint {
  const match = DECIMAL.exec(rate);
  if (!match) throw new RangeError(`invalid rate ${rate}`);
  const rateFraction = match[2] ?? "";
  const rateScaled = BigInt((match[1] ?? "0") + rateFraction);
  // raw * rate / 10^decimals * 10^6, with the rate's own scale removed.
  const numerator = raw * rateScaled * 10n ** BigInt(USD_DECIMALS);
  const denominator = 10n ** BigInt(decimals + rateFraction.length);
  return (numerator + denominator / 2n) / denominator;
}

/** Fee in USD micro-units for `amount`: basis points (rounded half-up) plus a fixed part, capped at the amount. */
export function feeMicros(amount: bigint, basisPoints: number, fixedMicros: bigint): bigint {
  const variable = (amount * BigInt(basisPoints) + 5_000n) / 10_000n;
  const fee = variable + fixedMicros;
  return fee > amount ? amount : fee;
}
