import { randomUUID } from "node:crypto";
import { createEvmAdapter } from "@mp/chain-evm";
import { resolveChainConfig, silentLogger } from "@mp/core";
import { createWatchSet } from "@mp/custody";
import { createIndexer, createIndexerMetrics, type Indexer, type IndexerMetrics } from "@mp/indexer";
import type { RateProvider } from "@mp/providers";
import {
  type AnvilNode,
  deployTestToken,
  sendNative,
  startAnvil,
  type TestToken,
  transferToken,
} from "@mp/test-nodes/evm";
import { privateKeyToAccount } from "viem/accounts";
import { expect } from "vitest";
import { type ApiHarness, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { stopIfThrows } from "../support/stop-if-throws.ts";
import { useStarted } from "../support/use-started.ts";
import { addWallet, catchUp } from "./indexer-fixtures.ts";

const CONFIRMATIONS = 3;

/**
 * BASE on its own anvil with test tokens configured (each under its symbol), the API on it and its
 * indexer valuing deposits with the test's rate provider: the set-up of the tests of deposits
 * waiting for a rate.
 */
export interface RatedChain {
  node: AnvilNode;
  api: ApiHarness;
  indexer: Indexer;
  metrics: IndexerMetrics;
  /** Pays `amount` (smallest units) of `asset`, ETH or a token's symbol, to `to`: the tx hash. */
  pay(asset: string, to: string, amount: bigint): Promise<string>;
  /** Mines the confirmations of what was paid, catches up, and answers the merchant's deposits by tx hash. */
  settle(merchant: TestMerchant): Promise<Map<string, Record<string, unknown>>>;
  /** The merchant's deposits by transaction hash, as GET /v1/deposits shows them. */
  depositsByTx(merchant: TestMerchant): Promise<Map<string, Record<string, unknown>>>;
  /** indexer_deposits_awaiting_rate{chain="BASE", asset}, undefined when never set. */
  awaitingRate(asset: string): Promise<number | undefined>;
  /** A new merchant, and the wallet address of an approved customer of it, derived from `keyByte`. */
  merchantWithWallet(keyByte: string): Promise<{ merchant: TestMerchant; address: string }>;
  /** Mines a block and catches up: without a usable rate the deposit of `tx` still waits. */
  expectStillAwaitingRate(merchant: TestMerchant, tx: string): Promise<void>;
  /**
   * Catches up once a rate is there: the deposit of `tx` is confirmed at `valued`, and no deposit of
   * `asset` waits any more. Answers the deposits by transaction hash.
   */
  expectCreditedAtRate(
    merchant: TestMerchant,
    tx: string,
    asset: string,
    valued: { usd_rate: string; amount_usd: string },
  ): Promise<Map<string, Record<string, unknown>>>;
  stop(): Promise<void>;
}

/**
 * The rated chain of the calling describe block, started in its beforeAll (anvil on Base's chain id,
 * the 6-decimal `tokens` deployed, then `rates` made, given the node for feeds deployed on it) and
 * stopped in its afterAll. It stands for the chain from the start (see late.ts).
 */
export function useRatedChain(
  tokens: ReadonlyArray<{ name: string; symbol: string }>,
  rates: (node: AnvilNode) => RateProvider | Promise<RateProvider>,
): RatedChain {
  return useStarted(
    "the rated chain",
    async () =>
      stopIfThrows(await startAnvil({ chainId: 8453 }), async (node) => {
        const deployed: TestToken[] = [];
        for (const token of tokens) deployed.push(await deployTestToken(node, { ...token, decimals: 6 }));
        return startRatedChain(node, deployed, await rates(node));
      }),
    (chain) => chain.stop(),
  );
}

async function startRatedChain(
  node: AnvilNode,
  tokens: readonly TestToken[],
  rates: RateProvider,
): Promise<RatedChain> {
  const config = resolveChainConfig("BASE", {
    rpcUrl: node.url,
    confirmations: CONFIRMATIONS,
    pollIntervalMs: 50,
    tokens: tokens.map((t) => ({ asset: t.symbol, address: t.address, decimals: t.decimals })),
  });
  const api = await startApiHarness({ overrides: { chains: { BASE: config }, rates } });
  const metrics = createIndexerMetrics(api.deps.metrics);
  const indexer = createIndexer({
    db: api.db,
    adapter: createEvmAdapter(config),
    config,
    watch: createWatchSet(api.db, "BASE"),
    rates,
    logger: silentLogger(),
    metrics,
  });
  const rated: RatedChain = {
    node,
    api,
    indexer,
    metrics,
    async pay(asset, to, amount) {
      if (asset === "ETH") return (await sendNative(node, to, amount)).txHash;
      const token = tokens.find((t) => t.symbol === asset);
      if (!token) throw new Error(`${asset} is not a token of the rated chain`);
      return (await transferToken(node, token, to, amount)).txHash;
    },
    async settle(merchant) {
      await node.mine(CONFIRMATIONS);
      await catchUp(indexer);
      return rated.depositsByTx(merchant);
    },
    async depositsByTx(merchant) {
      const res = await api.call(merchant.apiKey, "/v1/deposits");
      expect(res.status).toBe(200);
      return new Map(res.body.data.items.map((d: { tx_hash: string }) => [d.tx_hash, d]));
    },
    async awaitingRate(asset) {
      const { values } = await metrics.depositsAwaitingRate.get();
      return values.find((v) => v.labels.chain === "BASE" && v.labels.asset === asset)?.value;
    },
    async merchantWithWallet(keyByte) {
      const merchant = await api.merchant();
      const customerId = randomUUID();
      await api.db.query(
        "INSERT INTO customers (id, merchant_id, type, status) VALUES ($1, $2, 'INDIVIDUAL', 'APPROVED')",
        [customerId, merchant.merchantId],
      );
      const address = privateKeyToAccount(`0x${keyByte.repeat(32)}`).address;
      const owner = { merchantId: merchant.merchantId, customerId, feeBps: 0, feeFixedMicros: 0n };
      await addWallet(api.db, owner, "BASE", address);
      return { merchant, address };
    },
    async expectStillAwaitingRate(merchant, tx) {
      await node.mine(1);
      await catchUp(indexer);
      expect((await rated.depositsByTx(merchant)).get(tx)).toMatchObject({ status: "PENDING", awaiting_rate: true });
    },
    async expectCreditedAtRate(merchant, tx, asset, valued) {
      await catchUp(indexer);
      const deposits = await rated.depositsByTx(merchant);
      expect(deposits.get(tx)).toMatchObject({ status: "CONFIRMED", awaiting_rate: false, ...valued });
      expect(await rated.awaitingRate(asset)).toBe(0);
      return deposits;
    },
    async stop() {
      await indexer.stop();
      await api.stop();
      await node.stop();
    },
  };
  return rated;
}
