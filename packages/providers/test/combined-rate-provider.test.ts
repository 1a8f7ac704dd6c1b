import { type AnvilNode, compileMockAggregator, deployMockAggregator, setRound, startAnvil } from "@mp/test-nodes/evm";
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type CombinedRateProviderOptions,
  createChainlinkRateProvider,
  createCombinedRateProvider,
  createKrakenTickerRateProvider,
} from "../src/index.ts";
import { expectRefused } from "./expect-refused.ts";
import { NEEDS_SHARED, SHARED_FIXTURES_PRESENT, sharedFixture } from "./shared-fixtures.ts";
import { startTickerServer, type TickerServer } from "./ticker-server.ts";

/**
 * Both production sources at once: Chainlink feeds on anvil and Kraken's recorded all-pairs answer
 * of 2026-06-24 15:01:46 over HTTP. The Chainlink BTC answer is set to CoinGecko's BTC price
 * recorded one second later in the same cassette (60997), so the two sources disagree by what the
 * market really showed: Kraken's mid 61018.6 against 60997, 3.54 bps.
 */
const KRAKEN_DATE = "Wed, 24 Jun 2026 15:01:46 GMT";
const answeredAt = new Date(KRAKEN_DATE);
const now = () => new Date(answeredAt.getTime() + 1_000);
const at = (date: Date) => BigInt(Math.floor(date.getTime() / 1000));

let node: AnvilNode;
let server: TickerServer;
let btcFeed: Address;
let usdcFeed: Address;

function combined(options: Partial<CombinedRateProviderOptions> = {}) {
  const chainlink = createChainlinkRateProvider({
    rpcUrl: node.url,
    feeds: {
      BTC: { address: btcFeed, heartbeatSeconds: 3600, decimals: 8 },
      USDC: { address: usdcFeed, heartbeatSeconds: 86400, decimals: 8 },
    },
    now,
  });
  const kraken = createKrakenTickerRateProvider({ baseUrl: server.url, now });
  return createCombinedRateProvider([chainlink, kraken], { maxSpreadBps: 50, ...options });
}

describe.skipIf(!SHARED_FIXTURES_PRESENT)(`combined Chainlink + Kraken rates${NEEDS_SHARED}`, () => {
  let round = 0n;
  const setBtc = (answer: bigint, updatedAt: bigint) => {
    round += 1n;
    return setRound(node, btcFeed, { roundId: round, answer, updatedAt });
  };

  beforeAll(async () => {
    const compiled = compileMockAggregator();
    node = await startAnvil();
    btcFeed = getAddress(await deployMockAggregator(node, compiled, 8, "BTC / USD"));
    usdcFeed = getAddress(await deployMockAggregator(node, compiled, 8, "USDC / USD"));
    // USDC / USD on mainnet at block 21081131.
    await setRound(node, usdcFeed, { roundId: 1n, answer: 99983712n, updatedAt: at(answeredAt) - 600n });
    server = await startTickerServer();
    server.reply({
      body: sharedFixture("exchange-tickers/kraken-ticker-all-pairs-2026-06-24.json"),
      date: KRAKEN_DATE,
    });
  });

  afterAll(async () => {
    await server?.stop();
    await node?.stop();
  });

  beforeEach(async () => {
    await setBtc(6_099_700_000_000n, at(answeredAt) - 30n);
  });

  it("takes the median of fresh answers that agree, expiring with the earliest, naming both sources", async () => {
    const rate = await combined().rateFor("BTC");
    expect(rate).toEqual({
      fromCurrency: "BTC",
      toCurrency: "USD",
      rate: "61007.8",
      // Kraken's answer is used for 60 s; the feed's lasts until updatedAt + 3600 + 120.
      expiresAt: new Date(answeredAt.getTime() + 60_000),
      source: `median(chainlink:${btcFeed},kraken:BTC/USD)`,
    });
  });

  it("refuses when the sources disagree by more than maxSpreadBps (3.54 bps here)", async () => {
    expect((await combined({ maxSpreadBps: 4 }).rateFor("BTC")).rate).toBe("61007.8");
    const error = await expectRefused(combined({ maxSpreadBps: 3 }).rateFor("BTC"));
    expect(error.reason).toBe("disagreement");
    expect(error.message).toContain("60997");
    expect(error.message).toContain("61018.6");
    // A feed answer 10 % off is refused at the default test spread of 50 bps.
    await setBtc(5_490_000_000_000n, at(answeredAt) - 30n);
    expect((await expectRefused(combined().rateFor("BTC"))).reason).toBe("disagreement");
  });

  it("by default needs every source: a stale feed stops valuing; minAnswers 1 takes the fresh one alone", async () => {
    await setBtc(6_099_700_000_000n, at(answeredAt) - 7200n);
    const error = await expectRefused(combined().rateFor("BTC"));
    expect(error.reason).toBe("too_few_sources");
    expect(error.message).toContain("(stale)");
    const alone = await combined({ minAnswers: 1 }).rateFor("BTC");
    expect(alone.rate).toBe("61018.6");
    expect(alone.source).toBe("median(kraken:BTC/USD)");
  });

  it("prices stablecoins from both sources (each within the band: 1)", async () => {
    const rate = await combined().rateFor("USDC");
    expect(rate.rate).toBe("1");
    expect(rate.source).toBe(`median(chainlink:${usdcFeed},kraken:USDC/USD)`);
  });

  it("lists the assets the rule accepts: both-source ones by default, every fresh one with minAnswers 1", async () => {
    const strict = await combined().listRates();
    expect(strict.map((r) => [r.fromCurrency, r.rate]).sort()).toEqual([
      ["BTC", "61007.8"],
      ["USDC", "1"],
    ]);
    const lenient = await combined({ minAnswers: 1 }).listRates();
    expect(lenient.map((r) => r.fromCurrency).sort()).toEqual(
      ["BNB", "BTC", "CELO", "ETH", "POL", "SOL", "TRX", "USDC", "USDT"].sort(),
    );
  });

  it("is one RateUnavailableError when every source is down", async () => {
    const down = createCombinedRateProvider(
      [
        createChainlinkRateProvider({ rpcUrl: "http://127.0.0.1:1", feeds: {}, now }),
        createKrakenTickerRateProvider({ baseUrl: "http://127.0.0.1:1", now }),
      ],
      { maxSpreadBps: 50, minAnswers: 1 },
    );
    expect((await expectRefused(down.rateFor("BTC"))).reason).toBe("too_few_sources");
    await expectRefused(down.listRates());
  });
});

describe("combined rate provider settings", () => {
  it("refuses impossible settings at construction", () => {
    const one = createKrakenTickerRateProvider({ baseUrl: "http://127.0.0.1:1" });
    expect(() => createCombinedRateProvider([], { maxSpreadBps: 50 })).toThrow(RangeError);
    expect(() => createCombinedRateProvider([one], { maxSpreadBps: 50, minAnswers: 2 })).toThrow(RangeError);
    expect(() => createCombinedRateProvider([one], { maxSpreadBps: 50, minAnswers: 0 })).toThrow(RangeError);
    expect(() => createCombinedRateProvider([one], { maxSpreadBps: -1 })).toThrow(RangeError);
  });
});
