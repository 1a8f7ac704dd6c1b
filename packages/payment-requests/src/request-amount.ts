import { decimalToUnits, unitsToDecimal } from "@mp/core";

/** USD requests are in cents: a payer never owes a fraction of one. */
export const USD_CURRENCY = { currency: "USD", decimals: 2 } as const;

/** `value` in smallest units of a currency with `decimals`, or null (not a plain decimal, too many digits). */
export function parseRequestAmount(value: string, decimals: number): bigint | null {
  return decimalToUnits(value, decimals);
}

/**
 * An amount of the request's currency as the API shows it: USD with its two decimals ("25.00"), a
 * crypto asset as a plain decimal without trailing zeros ("0.00038462", "25").
 */
export function formatRequestAmount(units: bigint, currency: string, decimals: number): string {
  return unitsToDecimal(units, decimals, currency === USD_CURRENCY.currency ? decimals : 0);
}

/** An amount of a chain asset as the API shows it: a plain decimal without trailing zeros. */
export function formatAssetAmount(units: bigint, decimals: number): string {
  return unitsToDecimal(units, decimals, 0);
}
