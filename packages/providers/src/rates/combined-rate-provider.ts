import { medianRate, spreadExceeds } from "./rate-decimal.ts";
import type { Rate, RateProvider } from "./rate-provider.ts";
import { RateUnavailableError } from "./rate-unavailable-error.ts";

export interface CombinedRateProviderOptions {
  /** Largest allowed (max - min) / median of the answers, in basis points; e.g. 100 = 1 %. */
  maxSpreadBps: number;
  /**
   * Fresh answers needed per asset; default every provider. With the default, one source down
   * stops valuing (deposits wait) rather than trusting the other source unchecked.
   */
  minAnswers?: number;
}

/**
 * Several sources at once (e.g. Chainlink and Kraken). Per asset: every provider is asked; the
 * answers that came (each provider has already refused its own stale or out-of-bounds ones) must
 * number at least `minAnswers` and lie within `maxSpreadBps` of each other around their median,
 * else RateUnavailableError. The rate is their median (the mean of the two for two sources),
 * exact; it expires with the earliest of them; its source names them all.
 */
export function createCombinedRateProvider(
  providers: readonly RateProvider[],
  options: CombinedRateProviderOptions,
): RateProvider {
  const minAnswers = options.minAnswers ?? providers.length;
  if (providers.length === 0) throw new RangeError("a combined rate provider needs at least one provider");
  if (!(Number.isInteger(minAnswers) && minAnswers >= 1 && minAnswers <= providers.length)) {
    throw new RangeError(`minAnswers must be between 1 and ${providers.length}`);
  }
  if (!(Number.isInteger(options.maxSpreadBps) && options.maxSpreadBps >= 0)) {
    throw new RangeError("maxSpreadBps must be a non-negative integer");
  }

  function combine(asset: string, answers: readonly Rate[], errors: readonly unknown[]): Rate {
    if (answers.length < minAnswers) {
      const said = errors.map((e) => (e instanceof Error ? e.message : String(e))).join("; ");
      throw new RateUnavailableError(
        asset,
        "too_few_sources",
        `${answers.length} of ${providers.length} sources answered, ${minAnswers} needed: ${said}`,
        { cause: errors[0] },
      );
    }
    const rates = answers.map((a) => a.rate);
    if (spreadExceeds(rates, options.maxSpreadBps)) {
      const quoted = answers.map((a) => `${a.source} ${a.rate}`).join(", ");
      throw new RateUnavailableError(
        asset,
        "disagreement",
        `sources differ by more than ${options.maxSpreadBps} bps: ${quoted}`,
      );
    }
    const expiresAt = new Date(Math.min(...answers.map((a) => a.expiresAt.getTime())));
    return {
      fromCurrency: asset,
      toCurrency: "USD",
      rate: medianRate(rates),
      expiresAt,
      source: `median(${answers.map((a) => a.source).join(",")})`,
    };
  }

  return {
    name: `combined(${providers.map((p) => p.name).join(",")})`,
    async listRates() {
      const settled = await Promise.allSettled(providers.map((p) => p.listRates()));
      const lists = settled.flatMap((s, i) =>
        s.status === "fulfilled" ? [s.value.map((rate) => withSource(rate, providers[i]))] : [],
      );
      const errors = settled.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : []));
      const assets = [...new Set(lists.flatMap((list) => list.map((r) => r.fromCurrency)))];
      const rates: Rate[] = [];
      let firstRefusal: unknown;
      for (const asset of assets) {
        const answers = lists.flatMap((list) => list.filter((r) => r.fromCurrency === asset));
        try {
          rates.push(combine(asset, answers, errors));
        } catch (error) {
          firstRefusal ??= error;
        }
      }
      // Assets a rule refuses are left out (as a stale feed is); nothing at all is an outage.
      if (rates.length === 0) throw firstRefusal ?? errors[0] ?? new RateUnavailableError("*", "no_source", "no rates");
      return rates;
    },
    async rateFor(asset) {
      const settled = await Promise.allSettled(providers.map((p) => p.rateFor(asset)));
      const answers = settled.flatMap((s, i) => (s.status === "fulfilled" ? [withSource(s.value, providers[i])] : []));
      const errors = settled.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : []));
      return combine(asset, answers, errors);
    },
  };
}

/** A rate named by its source, or by its provider when it gives none (the sandbox). */
function withSource(rate: Rate, provider: RateProvider | undefined): Rate {
  return rate.source === undefined ? { ...rate, source: provider?.name ?? "unknown" } : rate;
}
