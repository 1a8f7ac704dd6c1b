import { USD_DECIMALS, ValidationError } from "@mp/core";
import { type FeeSchedule, minimumOf, type PricedAsset, type PricedQuote, priceQuote } from "@mp/transfers";

/** USD as the ledger holds it (micro-dollars), moved in whole cents. */
export const USD_CENT_MICROS = 10n ** BigInt(USD_DECIMALS - 2);

export interface DrainPricing {
  /** The deposit's net USD value at its confirmation rate (the ledger's credit), in micro-dollars. */
  creditedUsdMicros: bigint;
  destination: Omit<PricedAsset, "quantum"> & { network: string; kind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT" };
  spreadBps: number;
  fee: FeeSchedule;
}

/**
 * A drain's figures, exact (quote-pricing.ts): the source is the deposit's credited USD cut down to
 * whole cents (a sub-cent remainder stays on the merchant's balance), priced into the destination at
 * the destination's USD rate less the spread, less the fee (fixed + bps, the merchant's override).
 * null when the drain cannot be paid: nothing left after the fee, or a crypto amount below its
 * chain's minimum (quote-minimums.ts).
 */
export function priceDrain(input: DrainPricing): PricedQuote | null {
  const cents = (input.creditedUsdMicros / USD_CENT_MICROS) * USD_CENT_MICROS;
  if (cents <= 0n) return null;
  const usd = { asset: "USD", decimals: USD_DECIMALS, quantum: USD_CENT_MICROS, usdRate: "1" };
  const crypto = input.destination.kind === "CRYPTO_ADDRESS";
  let priced: PricedQuote;
  try {
    priced = priceQuote({
      source: usd,
      destination: { ...input.destination, quantum: crypto ? 1n : USD_CENT_MICROS },
      amount: { side: "source", value: cents },
      spreadBps: input.spreadBps,
      fee: input.fee,
    });
  } catch (error) {
    if (error instanceof ValidationError) return null;
    throw error;
  }
  if (crypto && priced.destinationAmount < minimumOf(input.destination).units) return null;
  return priced;
}
