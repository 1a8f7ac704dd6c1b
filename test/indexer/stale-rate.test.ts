import { createChainlinkRateProvider, DEFAULT_CHAINLINK_GRACE_SECONDS } from "@mp/providers";
import { type AnvilNode, compileMockAggregator, deployMockAggregator, type Round, setRound } from "@mp/test-nodes/evm";
import { type Address, getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { expectLedgerOk } from "./indexer-fixtures.ts";
import { useRatedChain } from "./rated-chain.ts";

const HOUR = 3600;
const DAY = 86400;

/**
 * The production rate provider end to end: Chainlink feeds (MockAggregatorV3, Chainlink's exact
 * AggregatorV3Interface, deployed on the same anvil as the chain) read by createChainlinkRateProvider,
 * the indexer valuing real deposits with it, the API showing the outcome. A stale feed never values
 * a deposit: it waits, PENDING and awaiting_rate, counted per asset in
 * indexer_deposits_awaiting_rate, and is credited at the new answer once the feed publishes a fresh
 * round. Stablecoins are priced by their feeds: within the par band at exactly 1, a depeg at the
 * market rate.
 */
describe("deposits valued by Chainlink feeds: stale feed waits, fresh round credits", () => {
  const feeds = {} as Record<"ETH" | "USDC" | "USDT", Address>;
  let roundId = 1n;
  const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000));
  const publish = (node: AnvilNode, feed: Address, round: Omit<Round, "roundId">) => {
    roundId += 1n;
    return setRound(node, feed, { roundId, ...round });
  };

  const tokens = [
    { name: "USD Coin", symbol: "USDC" },
    { name: "Tether USD", symbol: "USDT" },
  ];
  const chain = useRatedChain(tokens, async (node) => {
    const compiled = compileMockAggregator();
    feeds.ETH = await deployMockAggregator(node, compiled, 8, "ETH / USD");
    feeds.USDC = await deployMockAggregator(node, compiled, 8, "USDC / USD");
    feeds.USDT = await deployMockAggregator(node, compiled, 8, "USDT / USD");
    // ETH's last round is older than its heartbeat plus the grace: stale from the start.
    const stale = nowSeconds() - BigInt(HOUR + DEFAULT_CHAINLINK_GRACE_SECONDS + 60);
    await publish(node, feeds.ETH, { answer: 3_000_00000000n, updatedAt: stale });
    // USDC 0.9998 (inside the 50 bps par band), USDT 0.97 (a depeg): both fresh.
    await publish(node, feeds.USDC, { answer: 99_980_000n, updatedAt: nowSeconds() });
    await publish(node, feeds.USDT, { answer: 97_000_000n, updatedAt: nowSeconds() });
    return createChainlinkRateProvider({
      rpcUrl: node.url,
      feeds: {
        ETH: { address: feeds.ETH, heartbeatSeconds: HOUR, decimals: 8 },
        USDC: { address: feeds.USDC, heartbeatSeconds: DAY, decimals: 8 },
        USDT: { address: feeds.USDT, heartbeatSeconds: DAY, decimals: 8 },
      },
    });
  });

  it("waits on a stale feed, prices stablecoins from theirs, and credits at the fresh round", async () => {
    const { api } = chain;
    const { merchant, address } = await chain.merchantWithWallet("43");

    const ethTx = await chain.pay("ETH", address, 2n * 10n ** 18n);
    const usdcTx = await chain.pay("USDC", address, 5_000_000n);
    const usdtTx = await chain.pay("USDT", address, 10_000_000n);
    let deposits = await chain.settle(merchant);
    // Stablecoins are asked of their feeds: 0.9998 rounds to par, 0.97 is a depeg valued as such.
    expect(deposits.get(usdcTx)).toMatchObject({ status: "CONFIRMED", usd_rate: "1", amount_usd: "5.000000" });
    expect(deposits.get(usdtTx)).toMatchObject({ status: "CONFIRMED", usd_rate: "0.97", amount_usd: "9.700000" });
    // The stale ETH feed values nothing: the deposit waits, uncredited and visible.
    expect(deposits.get(ethTx)).toMatchObject({
      status: "PENDING",
      awaiting_rate: true,
      amount: "2.000000",
      amount_usd: null,
      usd_rate: null,
    });
    expect(await chain.awaitingRate("ETH")).toBe(1);
    expect(await chain.awaitingRate("USDC")).toBeUndefined();
    const scraped = await api.call(undefined, "/metrics");
    expect(scraped.text).toContain('indexer_deposits_awaiting_rate{chain="BASE",asset="ETH"} 1');

    // GET /v1/rates lists the usable rates with their source and expiry; the stale ETH is left out.
    const rates = await api.call(merchant.apiKey, "/v1/rates");
    expect(rates.status).toBe(200);
    const items = rates.body.data.items as Array<{ from_currency: string; source: string; expires_at: string }>;
    expect(items.map((r) => r.from_currency).sort()).toEqual(["USDC", "USDT"]);
    expect(items.find((r) => r.from_currency === "USDC")).toMatchObject({
      rate: "1",
      source: `chainlink:${getAddress(feeds.USDC)}`,
    });
    const usdcExpiry = Date.parse(items.find((r) => r.from_currency === "USDC")?.expires_at ?? "");
    expect(usdcExpiry).toBeGreaterThan(Date.now() + (DAY - 120) * 1000);

    // The balance answers; the ETH deposit, which cannot be valued, is in neither figure.
    let balance = await api.call(merchant.apiKey, "/v1/balance");
    expect(balance.status).toBe(200);
    expect(balance.body.data).toMatchObject({ available: "14.700000", pending: "0.000000" });

    // More iterations on the stale feed change nothing.
    await chain.expectStillAwaitingRate(merchant, ethTx);

    // The feed publishes a fresh round: the next iteration credits at that answer.
    await publish(chain.node, feeds.ETH, { answer: 3_123_45000000n, updatedAt: nowSeconds() });
    deposits = await chain.expectCreditedAtRate(merchant, ethTx, "ETH", {
      usd_rate: "3123.45",
      amount_usd: "6246.900000",
    });
    balance = await api.call(merchant.apiKey, "/v1/balance");
    expect(balance.body.data).toMatchObject({ available: "6261.600000", pending: "0.000000" });
    await expectLedgerOk(api.db);
  });
});
