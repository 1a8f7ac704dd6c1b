import type { Rate, RateProvider } from "./rate-provider.ts";

export interface CachedRateProviderOptions {
  /** How long one answer is reused; default 5 s. Never past the rate's own expiresAt. */
  maxAgeMs?: number;
  now?: () => Date;
}

/**
 * Reuses a provider's answers for a few seconds, so that GET /v1/rates (public in its legacy form)
 * and busy indexers cost one round of RPC or HTTP calls per interval, not one per request. A rate is
 * never served past its own expiresAt, and failures are not cached: the next call asks again.
 */
export function createCachedRateProvider(
  provider: RateProvider,
  options: CachedRateProviderOptions = {},
): RateProvider {
  const now = options.now ?? (() => new Date());
  const maxAgeMs = options.maxAgeMs ?? 5_000;
  if (!(Number.isInteger(maxAgeMs) && maxAgeMs >= 0)) throw new RangeError("maxAgeMs must be an integer >= 0");
  const rates = new Map<string, { at: number; rate: Rate }>();
  let list: { at: number; rates: Rate[] } | undefined;

  const young = (at: number, t: number) => t - at < maxAgeMs;
  const unexpired = (rate: Rate, t: number) => rate.expiresAt.getTime() > t;

  return {
    name: provider.name,
    async listRates() {
      const t = now().getTime();
      if (list && young(list.at, t) && list.rates.every((rate) => unexpired(rate, t))) return list.rates;
      const fresh = await provider.listRates();
      list = { at: t, rates: fresh };
      for (const rate of fresh) rates.set(rate.fromCurrency, { at: t, rate });
      return fresh;
    },
    async rateFor(asset) {
      const t = now().getTime();
      const cached = rates.get(asset);
      if (cached && young(cached.at, t) && unexpired(cached.rate, t)) return cached.rate;
      const rate = await provider.rateFor(asset);
      rates.set(asset, { at: t, rate });
      return rate;
    },
  };
}
