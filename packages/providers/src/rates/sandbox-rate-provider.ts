import { USD_STABLECOINS, ValidationError } from "@mp/core";
import type { Rate, RateProvider } from "./rate-provider.ts";

/**
 * Fixed, documented sandbox rates so that sandbox valuations are reproducible. The USD stablecoins
 * (USD_STABLECOINS) are exactly 1: in a sandbox they are valued at par as they always were; the
 * production providers price them from the market (stablecoin-par.ts). Quoted for 60 seconds.
 */
export const SANDBOX_RATES: Readonly<Record<string, string>> = {
  BTC: "65000.00",
  ETH: "3200.00",
  SOL: "150.00",
  TRX: "0.12",
  BNB: "580.00",
  POL: "0.50",
  CELO: "0.60",
  ...Object.fromEntries([...USD_STABLECOINS].map((asset) => [asset, "1"])),
};

const TTL_MS = 60_000;

export function createSandboxRateProvider(options: { now?: () => Date } = {}): RateProvider {
  const now = options.now ?? (() => new Date());
  const make = (asset: string, rate: string): Rate => ({
    fromCurrency: asset,
    toCurrency: "USD",
    rate,
    expiresAt: new Date(now().getTime() + TTL_MS),
    source: "sandbox",
  });
  return {
    name: "sandbox",
    async listRates() {
      return Object.entries(SANDBOX_RATES).map(([asset, rate]) => make(asset, rate));
    },
    async rateFor(asset) {
      const rate = SANDBOX_RATES[asset];
      if (rate === undefined) throw new ValidationError(`No USD rate for asset ${asset}`, "asset");
      return make(asset, rate);
    },
  };
}
