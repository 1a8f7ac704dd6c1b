import { z } from "zod";
import { listUsable } from "./list-usable.ts";
import { checkRateBounds, type RateBounds } from "./rate-bounds.ts";
import { compareRates, medianRate, parseRate } from "./rate-decimal.ts";
import type { Rate, RateProvider } from "./rate-provider.ts";
import { RateUnavailableError } from "./rate-unavailable-error.ts";
import { roundToPar, type StablecoinPar } from "./stablecoin-par.ts";

/**
 * Kraken's public ticker (no API key): `GET /0/public/Ticker?assetVersion=1`, documented at
 * docs.kraken.com/api/docs/rest-api/get-ticker-information. With `assetVersion=1` pairs are named
 * `BTC/USD`, `USDC/USD`, … (without it, legacy names like `XXBTZUSD`). One request answers every pair,
 * so one call serves all assets. Every price is a decimal string; the answer carries no timestamp,
 * so the HTTP `Date` header dates it. Recorded answers used by the tests: rotki/test-caching
 * `cassettes/external_apis/test_kraken/test_kraken_price_close_to_coingecko.yaml` (see
 * ../shared/fixtures/exchange-tickers/SOURCES.md).
 */
export const KRAKEN_API_URL = "https://api.kraken.com";

/** The assets of the service that Kraken quotes against USD (every one, as of 2026-06). */
export const KRAKEN_DEFAULT_ASSETS = ["BTC", "ETH", "SOL", "TRX", "BNB", "POL", "CELO", "USDC", "USDT"] as const;

const decimalString = z.string().refine((value) => parseRate(value) !== null, "not a plain decimal string");

/** The fields we read of one pair: `a`/`b` = [price, whole lot volume, lot volume] of the best ask/bid. */
const krakenTickerSchema = z.object({
  a: z.tuple([decimalString], z.string()),
  b: z.tuple([decimalString], z.string()),
});

const krakenEnvelopeSchema = z.object({
  error: z.array(z.string()),
  result: z.record(z.string(), z.unknown()).optional(),
});

export interface KrakenTickerRateProviderOptions extends StablecoinPar {
  /** Default KRAKEN_API_URL. */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Whole request, body included; default 5 s. */
  timeoutMs?: number;
  /** How long one answer is used: a rate expires `ttlSeconds` after the answer's Date; default 60. */
  ttlSeconds?: number;
  /** Assets listed by listRates; default KRAKEN_DEFAULT_ASSETS. */
  assets?: readonly string[];
  /** Asset -> Kraken pair name, where it is not `<ASSET>/USD`. */
  pairs?: Readonly<Record<string, string>>;
  bounds?: RateBounds;
  now?: () => Date;
}

interface TickerAnswer {
  result: Record<string, unknown>;
  /** When Kraken answered (its Date header, or our clock when absent): the start of the rates' life. */
  observedAt: Date;
}

/**
 * Rates from Kraken's ticker: the mid of the best bid and best ask (one trade of any size cannot move
 * it, unlike the last trade price), exact. An answer is reused until it is `ttlSeconds` old and never
 * used after: a stale Date (a cache in between), an `error` list, a non-2xx status, a body of
 * another shape, a missing pair, a crossed or empty book all throw RateUnavailableError.
 */
export function createKrakenTickerRateProvider(options: KrakenTickerRateProviderOptions = {}): RateProvider {
  const now = options.now ?? (() => new Date());
  const fetchImpl = options.fetch ?? fetch;
  const ttlSeconds = options.ttlSeconds ?? 60;
  if (!(Number.isInteger(ttlSeconds) && ttlSeconds > 0)) throw new RangeError("ttlSeconds must be a positive integer");
  const ttlMs = ttlSeconds * 1000;
  const url = new URL("/0/public/Ticker?assetVersion=1", options.baseUrl ?? KRAKEN_API_URL).toString();
  const pairOf = (asset: string) => options.pairs?.[asset] ?? `${asset}/USD`;
  let last: TickerAnswer | undefined;

  async function fetchTicker(asset: string): Promise<TickerAnswer> {
    let response: Response;
    let text: string;
    try {
      response = await fetchImpl(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
      });
      text = await response.text();
    } catch (cause) {
      throw new RateUnavailableError(asset, "unreachable", `GET ${url} failed`, { cause });
    }
    if (!response.ok) {
      throw new RateUnavailableError(
        asset,
        "bad_response",
        `GET ${url} answered HTTP ${response.status}: ${text.slice(0, 200)}`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (cause) {
      throw new RateUnavailableError(asset, "bad_response", `GET ${url} answered no JSON`, { cause });
    }
    const envelope = krakenEnvelopeSchema.safeParse(body);
    if (!envelope.success) {
      throw new RateUnavailableError(asset, "bad_response", `Kraken answered another shape: ${envelope.error.message}`);
    }
    if (envelope.data.error.length > 0 || !envelope.data.result) {
      throw new RateUnavailableError(asset, "bad_response", `Kraken answered errors ${envelope.data.error.join(", ")}`);
    }
    // Dated by Kraken's clock, never later than ours: a Date ahead of us must not lengthen a rate's life.
    const date = Date.parse(response.headers.get("date") ?? "");
    const received = now().getTime();
    return {
      result: envelope.data.result,
      observedAt: new Date(Number.isNaN(date) ? received : Math.min(date, received)),
    };
  }

  /** The last answer while younger than the TTL, else a new request. */
  async function ticker(asset: string): Promise<TickerAnswer> {
    if (last && now().getTime() - last.observedAt.getTime() < ttlMs) return last;
    last = await fetchTicker(asset);
    return last;
  }

  function rateOf(asset: string, answer: TickerAnswer): Rate {
    const pair = pairOf(asset);
    const source = `kraken:${pair}`;
    const expiresAt = new Date(answer.observedAt.getTime() + ttlMs);
    if (now() >= expiresAt) {
      throw new RateUnavailableError(asset, "stale", `Kraken's answer is dated ${answer.observedAt.toISOString()}`);
    }
    const entry = answer.result[pair];
    if (entry === undefined) throw new RateUnavailableError(asset, "no_source", `Kraken has no pair ${pair}`);
    const ticker = krakenTickerSchema.safeParse(entry);
    if (!ticker.success) {
      throw new RateUnavailableError(asset, "bad_response", `Kraken ${pair}: ${ticker.error.message}`);
    }
    const [ask, bid] = [ticker.data.a[0], ticker.data.b[0]];
    if (compareRates(bid, "0") <= 0 || compareRates(bid, ask) > 0) {
      throw new RateUnavailableError(asset, "invalid_answer", `Kraken ${pair}: bid ${bid}, ask ${ask}`);
    }
    // The mean of the two, exact.
    const rate = medianRate([bid, ask]);
    checkRateBounds(asset, rate, options.bounds, source);
    return { fromCurrency: asset, toCurrency: "USD", rate: roundToPar(asset, rate, options), expiresAt, source };
  }

  return {
    name: "kraken",
    async listRates() {
      const assets = options.assets ?? KRAKEN_DEFAULT_ASSETS;
      const answer = await ticker(assets[0] ?? "*");
      return listUsable(assets.map(async (asset) => rateOf(asset, answer)));
    },
    async rateFor(asset) {
      return rateOf(asset, await ticker(asset));
    },
  };
}
