import {
  ANVIL_DEPLOYER,
  type AnvilNode,
  type CompiledAggregator,
  compileMockAggregator,
  deployMockAggregator,
  functionSignatures,
  setRound,
  startAnvil,
} from "@mp/test-nodes/evm";
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  aggregatorV3Abi,
  CHAINLINK_MAINNET_FEEDS,
  type ChainlinkRateProviderOptions,
  createChainlinkRateProvider,
  DEFAULT_CHAINLINK_GRACE_SECONDS,
  type RateUnavailableReason,
} from "../src/index.ts";
import { expectRefused } from "./expect-refused.ts";
import { NEEDS_SHARED, SHARED_FIXTURES_PRESENT, sharedFixture } from "./shared-fixtures.ts";

/**
 * The Chainlink provider against real contracts on anvil: MockAggregatorV3 implements Chainlink's
 * AggregatorV3Interface exactly (checked against Chainlink's published ABI below) and the test writes
 * its rounds. Answers are real mainnet values from ../shared/fixtures/chainlink/SOURCES.md.
 */
const HOUR = 3600;
const DAY = 86400;

let node: AnvilNode;
let compiled: CompiledAggregator;
const feeds = {} as Record<"ETH" | "USDC" | "USDT" | "ETH18", Address>;

const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000));
let roundId = 100n;
const nextRound = () => {
  roundId += 1n;
  return roundId;
};

function provider(overrides: Partial<ChainlinkRateProviderOptions> = {}) {
  return createChainlinkRateProvider({
    rpcUrl: node.url,
    feeds: {
      ETH: { address: feeds.ETH, heartbeatSeconds: HOUR, decimals: 8 },
      USDC: { address: feeds.USDC, heartbeatSeconds: DAY, decimals: 8 },
      USDT: { address: feeds.USDT, heartbeatSeconds: DAY },
      ETH18: { address: feeds.ETH18, heartbeatSeconds: HOUR },
    },
    ...overrides,
  });
}

async function expectRefusedFor(
  asset: string,
  reason: RateUnavailableReason,
  options?: Partial<ChainlinkRateProviderOptions>,
) {
  const error = await expectRefused(provider(options).rateFor(asset), reason);
  expect(error.details).toEqual({ asset, reason });
}

beforeAll(async () => {
  compiled = compileMockAggregator();
  node = await startAnvil();
  feeds.ETH = await deployMockAggregator(node, compiled, 8, "ETH / USD");
  feeds.USDC = await deployMockAggregator(node, compiled, 8, "USDC / USD");
  feeds.USDT = await deployMockAggregator(node, compiled, 8, "USDT / USD");
  feeds.ETH18 = await deployMockAggregator(node, compiled, 18, "USDT / ETH");
});

afterAll(async () => {
  await node?.stop();
});

describe.skipIf(!SHARED_FIXTURES_PRESENT)(`the mock aggregator${NEEDS_SHARED}`, () => {
  it("declares exactly Chainlink's AggregatorV3Interface, and the provider calls it as Chainlink declares it", () => {
    const chainlink: unknown[] = JSON.parse(sharedFixture("chainlink/AggregatorV3Interface.abi.json"));
    expect(compiled.interfaceAbi).toEqual(chainlink);
    const mock = functionSignatures(compiled.mockAbi);
    for (const signature of functionSignatures(chainlink)) expect(mock).toContain(signature);
    // The mock adds only its setter.
    expect(mock.filter((s) => !functionSignatures(chainlink).includes(s))).toEqual([
      "function setRound(uint80 roundId,int256 answer,uint256 startedAt,uint256 updatedAt,uint80 answeredInRound)() nonpayable",
    ]);
    for (const signature of functionSignatures(aggregatorV3Abi))
      expect(functionSignatures(chainlink)).toContain(signature);
  });
});

describe("Chainlink rate provider", () => {
  it("gives a fresh answer as an exact decimal, expiring when the feed would be stale", async () => {
    const updatedAt = nowSeconds() - 600n;
    // ETH / USD on mainnet at block 21081129: 2663.34866178 (answer 266334866178, 8 decimals).
    await setRound(node, feeds.ETH, { roundId: nextRound(), answer: 266334866178n, updatedAt });
    const rate = await provider().rateFor("ETH");
    expect(rate).toEqual({
      fromCurrency: "ETH",
      toCurrency: "USD",
      rate: "2663.34866178",
      expiresAt: new Date(Number(updatedAt + BigInt(HOUR + DEFAULT_CHAINLINK_GRACE_SECONDS)) * 1000),
      source: `chainlink:${getAddress(feeds.ETH)}`,
    });
  });

  it("refuses an answer older than heartbeat + grace, and takes one just within the grace", async () => {
    const late = nowSeconds() - BigInt(HOUR + 60);
    await setRound(node, feeds.ETH, { roundId: nextRound(), answer: 266334866178n, updatedAt: late });
    expect((await provider().rateFor("ETH")).rate).toBe("2663.34866178");
    await expectRefusedFor("ETH", "stale", { graceSeconds: 30 });

    const stale = nowSeconds() - BigInt(HOUR + DEFAULT_CHAINLINK_GRACE_SECONDS + 10);
    await setRound(node, feeds.ETH, { roundId: nextRound(), answer: 266334866178n, updatedAt: stale });
    await expectRefusedFor("ETH", "stale");
  });

  it("refuses zero and negative answers, incomplete and carried-over rounds, and timestamps in the future", async () => {
    const fresh = nowSeconds() - 5n;
    for (const answer of [0n, -1n, -266334866178n]) {
      await setRound(node, feeds.ETH, { roundId: nextRound(), answer, updatedAt: fresh });
      await expectRefusedFor("ETH", "invalid_answer");
    }
    const id = nextRound();
    await setRound(node, feeds.ETH, {
      roundId: id,
      answer: 266334866178n,
      updatedAt: fresh,
      answeredInRound: id - 1n,
    });
    await expectRefusedFor("ETH", "invalid_answer");
    await setRound(node, feeds.ETH, {
      roundId: nextRound(),
      answer: 266334866178n,
      updatedAt: 0n,
      startedAt: fresh,
    });
    await expectRefusedFor("ETH", "invalid_answer");
    await setRound(node, feeds.ETH, {
      roundId: nextRound(),
      answer: 266334866178n,
      updatedAt: nowSeconds() + 3600n,
    });
    await expectRefusedFor("ETH", "invalid_answer");
  });

  it("refuses answers outside the configured bounds, and takes those on them", async () => {
    const bounds = { ETH: { min: "100", max: "100000" } };
    const fresh = nowSeconds() - 5n;
    for (const answer of [9_999_999_999n, 10_000_000_000_001n]) {
      await setRound(node, feeds.ETH, { roundId: nextRound(), answer, updatedAt: fresh });
      await expectRefusedFor("ETH", "out_of_bounds", { bounds });
    }
    for (const [answer, rate] of [
      [10_000_000_000n, "100"],
      [10_000_000_000_000n, "100000"],
    ] as const) {
      await setRound(node, feeds.ETH, { roundId: nextRound(), answer, updatedAt: fresh });
      expect((await provider({ bounds }).rateFor("ETH")).rate).toBe(rate);
    }
  });

  it("reads a feed's own decimals (18 here) and refuses a feed whose decimals differ from the configured ones", async () => {
    // A USDT / ETH round with 18 decimals (Tenderly's documented example): 0.000533060406405253.
    await setRound(node, feeds.ETH18, {
      roundId: nextRound(),
      answer: 533060406405253n,
      updatedAt: nowSeconds(),
    });
    expect((await provider().rateFor("ETH18")).rate).toBe("0.000533060406405253");
    await setRound(node, feeds.ETH18, {
      roundId: nextRound(),
      answer: 3_301_050000000000000000n,
      updatedAt: nowSeconds(),
    });
    expect((await provider().rateFor("ETH18")).rate).toBe("3301.05");

    const misconfigured = createChainlinkRateProvider({
      rpcUrl: node.url,
      feeds: { ETH: { address: feeds.ETH18, heartbeatSeconds: HOUR, decimals: 8 } },
    });
    const error = await expectRefused(misconfigured.rateFor("ETH"));
    expect(error.reason).toBe("bad_response");
    expect(error.message).toContain("18 decimals, configured 8");
  });

  it("prices stablecoins from their feeds: par within the band, the market rate outside it", async () => {
    const fresh = nowSeconds() - 60n;
    // USDC / USD and USDT / USD on mainnet at block 21081131: 0.99983712 and 0.9995413.
    await setRound(node, feeds.USDC, { roundId: nextRound(), answer: 99983712n, updatedAt: fresh });
    await setRound(node, feeds.USDT, { roundId: nextRound(), answer: 99954130n, updatedAt: fresh });
    expect((await provider().rateFor("USDC")).rate).toBe("1");
    expect((await provider().rateFor("USDT")).rate).toBe("1");
    expect((await provider({ parBandBps: 0 }).rateFor("USDC")).rate).toBe("0.99983712");
    expect((await provider({ parBandBps: 0 }).rateFor("USDT")).rate).toBe("0.9995413");
    // A depeg to 0.97 is valued at 0.97, not 1.
    await setRound(node, feeds.USDT, { roundId: nextRound(), answer: 97_000_000n, updatedAt: fresh });
    expect((await provider().rateFor("USDT")).rate).toBe("0.97");
  });

  it("answers an asset without a feed with RateUnavailableError(no_source), not a ValidationError", async () => {
    await expectRefusedFor("DOGE", "no_source");
  });

  it("lists the usable rates, leaving a stale feed out", async () => {
    const fresh = nowSeconds() - 60n;
    await setRound(node, feeds.ETH, { roundId: nextRound(), answer: 266334866178n, updatedAt: fresh });
    await setRound(node, feeds.USDC, {
      roundId: nextRound(),
      answer: 99983712n,
      updatedAt: fresh - BigInt(2 * DAY),
    });
    const rates = await provider().listRates();
    const listed = Object.fromEntries(rates.map((r) => [r.fromCurrency, r.rate]));
    expect(listed.ETH).toBe("2663.34866178");
    expect(listed).not.toHaveProperty("USDC");
  });

  it("says bad_response, not unreachable, for a feed address without a contract", async () => {
    const nothing = createChainlinkRateProvider({
      rpcUrl: node.url,
      feeds: { ETH: { address: ANVIL_DEPLOYER.address, heartbeatSeconds: HOUR } },
    });
    const error = await expectRefused(nothing.rateFor("ETH"), "bad_response");
    expect(error.message).toContain("reading chainlink:");
  });

  it("throws ServiceUnavailable when the node is down, for one rate and for the list", async () => {
    const other = await startAnvil();
    const feed = await deployMockAggregator(other, compiled, 8, "BTC / USD");
    await setRound(other, feed, { roundId: 1n, answer: 6_102_750_000_000n, updatedAt: nowSeconds() });
    const btc = createChainlinkRateProvider({
      rpcUrl: other.url,
      feeds: { BTC: { address: feed, heartbeatSeconds: HOUR, decimals: 8 } },
      timeoutMs: 2_000,
    });
    expect((await btc.rateFor("BTC")).rate).toBe("61027.5");
    await other.stop();
    const error = await expectRefused(btc.rateFor("BTC"));
    expect(error.reason).toBe("unreachable");
    expect((await expectRefused(btc.listRates())).reason).toBe("unreachable");
    // An API key in the URL (as hosted RPCs have it) is in neither the error nor any cause a log prints.
    const keyed = createChainlinkRateProvider({
      rpcUrl: `${other.url}/v3/key-5f0e2c9a71`,
      feeds: { BTC: { address: feed, heartbeatSeconds: HOUR, decimals: 8 } },
      timeoutMs: 2_000,
    });
    const refused = await expectRefused(keyed.rateFor("BTC"), "unreachable");
    const printed: string[] = [];
    for (let e: unknown = refused; e instanceof Error; e = e.cause) printed.push(e.message, e.stack ?? "");
    expect(printed.join("\n")).not.toMatch(/key-5f0e2c9a71|127\.0\.0\.1/);
    expect(refused.message).toMatch(/^No usable USD rate for BTC \(unreachable\): reading chainlink:0x\w+ failed: /);
  });

  it.skipIf(!SHARED_FIXTURES_PRESENT)(`ships mainnet defaults from Chainlink's feed list${NEEDS_SHARED}`, () => {
    const listed = z
      .array(z.object({ name: z.string(), proxyAddress: z.string(), decimals: z.number(), heartbeat: z.number() }))
      .parse(JSON.parse(sharedFixture("chainlink/chainlink-rdd-feeds-ethereum-mainnet-2024-11.json")));
    for (const [asset, feed] of Object.entries(CHAINLINK_MAINNET_FEEDS)) {
      const entry = listed.find((f) => f.name === `${asset} / USD`);
      expect(entry, asset).toBeDefined();
      expect({ address: feed.address, decimals: feed.decimals, heartbeatSeconds: feed.heartbeatSeconds }).toEqual({
        address: entry?.proxyAddress,
        decimals: entry?.decimals,
        heartbeatSeconds: entry?.heartbeat,
      });
    }
  });
});
