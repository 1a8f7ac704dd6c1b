import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createKrakenTickerRateProvider, type KrakenTickerRateProviderOptions } from "../src/index.ts";
import { expectRefused } from "./expect-refused.ts";
import { NEEDS_SHARED, SHARED_FIXTURES_PRESENT, sharedFixture } from "./shared-fixtures.ts";
import { startTickerServer, type TickerServer } from "./ticker-server.ts";

/**
 * The Kraken ticker provider against a local HTTP server that answers with real recorded Kraken
 * responses (../shared/fixtures/exchange-tickers, sources in its SOURCES.md), byte for byte, with
 * the recorded Date header where one was recorded.
 */
const ALL_PAIRS = "exchange-tickers/kraken-ticker-all-pairs-2026-06-24.json";
/** `GET https://api.kraken.com/0/public/Ticker?assetVersion=1` answered at this Date. */
const ALL_PAIRS_DATE = "Wed, 24 Jun 2026 15:01:46 GMT";
const answeredAt = new Date(ALL_PAIRS_DATE);
const secondsAfterAnswer = (seconds: number) => () => new Date(answeredAt.getTime() + seconds * 1000);

let server: TickerServer;

function kraken(options: Partial<KrakenTickerRateProviderOptions> = {}) {
  return createKrakenTickerRateProvider({ baseUrl: server.url, now: secondsAfterAnswer(1), ...options });
}

beforeAll(async () => {
  server = await startTickerServer();
});

afterAll(async () => {
  await server?.stop();
});

beforeEach(() => {
  server.requests.length = 0;
  if (SHARED_FIXTURES_PRESENT) server.reply({ body: sharedFixture(ALL_PAIRS), date: ALL_PAIRS_DATE });
});

describe.skipIf(!SHARED_FIXTURES_PRESENT)(`Kraken ticker rate provider on recorded answers${NEEDS_SHARED}`, () => {
  it("values every asset at the mid of the recorded best bid and ask, exactly, from one request", async () => {
    const rates = await kraken().listRates();
    expect(server.requests).toEqual(["/0/public/Ticker?assetVersion=1"]);
    expect(Object.fromEntries(rates.map((r) => [r.fromCurrency, r.rate]))).toEqual({
      BTC: "61018.6", // bid 61012.90000, ask 61024.30000
      ETH: "1644.62",
      SOL: "68.755",
      TRX: "0.3286555",
      BNB: "569.195",
      POL: "0.075425",
      CELO: "0.06245",
      USDC: "1", // mid 0.99965: 3.5 bps from par
      USDT: "1", // mid 0.998465: 15.35 bps from par
    });
    for (const rate of rates) {
      expect(rate.toCurrency).toBe("USD");
      expect(rate.expiresAt).toEqual(new Date(answeredAt.getTime() + 60_000));
      expect(rate.source).toBe(`kraken:${rate.fromCurrency}/USD`);
    }
  });

  it("prices stablecoins at the market outside the par band", async () => {
    const provider = kraken({ parBandBps: 10 });
    expect((await provider.rateFor("USDC")).rate).toBe("1");
    expect((await provider.rateFor("USDT")).rate).toBe("0.998465");
  });

  it("reuses one answer until its TTL, then asks again and refuses an answer dated too long ago", async () => {
    let seconds = 1;
    const provider = kraken({ now: () => secondsAfterAnswer(seconds)(), ttlSeconds: 30 });
    expect((await provider.rateFor("BTC")).rate).toBe("61018.6");
    seconds = 29;
    expect((await provider.rateFor("ETH")).rate).toBe("1644.62");
    expect(server.requests).toHaveLength(1);
    seconds = 30;
    // The server still sends the answer of 15:01:46 (a cache in between): stale, not used.
    await expectRefused(provider.rateFor("BTC"), "stale");
    expect(server.requests).toHaveLength(2);
    // By the real clock the recorded answer is long stale too.
    await expectRefused(kraken({ now: () => new Date() }).rateFor("BTC"), "stale");
  });

  it("never dates an answer later than our clock (a Date ahead of us does not lengthen a rate's life)", async () => {
    const ours = new Date(answeredAt.getTime() - 30_000);
    const rate = await kraken({ now: () => ours }).rateFor("BTC");
    expect(rate.expiresAt).toEqual(new Date(ours.getTime() + 60_000));
  });

  it("refuses a rate outside the configured bounds", async () => {
    const error = await expectRefused(kraken({ bounds: { BTC: { max: "60000" } } }).rateFor("BTC"), "out_of_bounds");
    expect(error.message).toContain("61018.6, above the maximum 60000");
    expect((await kraken({ bounds: { BTC: { min: "1000", max: "1000000" } } }).rateFor("BTC")).rate).toBe("61018.6");
  });

  it("reads the legacy pair names of the recorded XBTUSDT answer when told the pair, and says no_source otherwise", async () => {
    // Recorded by ccxt; its Date was not recorded, so the server dates it now.
    server.reply({ body: sharedFixture("exchange-tickers/kraken-ticker-xbtusdt-2024-03-13.json") });
    const now = () => new Date();
    await expectRefused(kraken({ now }).rateFor("BTC"), "no_source");
    const rate = await kraken({ now, pairs: { BTC: "XBTUSDT" } }).rateFor("BTC");
    expect(rate.rate).toBe("73380.65");
    expect(rate.source).toBe("kraken:XBTUSDT");
    // An asset Kraken does not list is no_source, not a ValidationError.
    await expectRefused(kraken().rateFor("DOGE2"), "no_source");
  });

  it("refuses a crossed or empty book (the recorded answer with BTC/USD's bid and ask altered)", async () => {
    const recorded = JSON.parse(sharedFixture(ALL_PAIRS));
    const btc = recorded.result["BTC/USD"];
    [btc.a, btc.b] = [btc.b, btc.a];
    server.reply({ body: JSON.stringify(recorded), date: ALL_PAIRS_DATE });
    expect((await expectRefused(kraken().rateFor("BTC"), "invalid_answer")).message).toContain("bid 61024.30000");
    expect((await kraken().rateFor("ETH")).rate).toBe("1644.62");
    btc.b = ["0.00000", "1", "1.000"];
    server.reply({ body: JSON.stringify(recorded), date: ALL_PAIRS_DATE });
    await expectRefused(kraken().rateFor("BTC"), "invalid_answer");
  });

  it("refuses an HTTP error answer (the recorded Alchemy Prices 400) with its status and body", async () => {
    server.reply({ status: 400, body: sharedFixture("exchange-tickers/alchemy-prices-historical-error-400.json") });
    const error = await expectRefused(kraken().rateFor("BTC"), "bad_response");
    expect(error.message).toContain("HTTP 400");
    expect(error.message).toContain("Token address not found");
  });

  it("refuses an answer of another API's shape (the recorded Coinbase Exchange ticker) at the Kraken URL", async () => {
    server.reply({ body: sharedFixture("exchange-tickers/coinbase-exchange-ticker-btc-usdt-2024-03-13.json") });
    await expectRefused(kraken().rateFor("BTC"), "bad_response");
  });

  it("refuses Kraken's error envelope and a body that is not JSON", async () => {
    // Kraken's documented error envelope (no recorded one exists, see SOURCES.md): HTTP 200, errors listed.
    server.reply({ body: '{"error":["EGeneral:Temporary lockout"],"result":{}}' });
    const error = await expectRefused(kraken().rateFor("BTC"), "bad_response");
    expect(error.message).toContain("EGeneral:Temporary lockout");
    server.reply({ body: "<html>502 Bad Gateway</html>" });
    await expectRefused(kraken().rateFor("BTC"), "bad_response");
  });
});

describe("Kraken ticker rate provider when Kraken cannot be reached", () => {
  it("gives up on a server that does not answer within timeoutMs", async () => {
    server.reply({ body: "", hang: true });
    const started = Date.now();
    await expectRefused(kraken({ timeoutMs: 300 }).rateFor("BTC"), "unreachable");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("is ServiceUnavailable when nothing listens, for one rate and for the list", async () => {
    const gone = await startTickerServer();
    await gone.stop();
    const provider = createKrakenTickerRateProvider({ baseUrl: gone.url, timeoutMs: 2_000 });
    await expectRefused(provider.rateFor("BTC"), "unreachable");
    await expectRefused(provider.listRates(), "unreachable");
  });
});
