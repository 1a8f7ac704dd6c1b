import { randomUUID } from "node:crypto";
import { createEvmAdapter } from "@mp/chain-evm";
import { resolveChainConfig, silentLogger } from "@mp/core";
import { createWatchSet } from "@mp/custody";
import { createIndexer, createIndexerMetrics, type Indexer, type IndexerMetrics } from "@mp/indexer";
import { createSandboxRateProvider, type RateProvider } from "@mp/providers";
import { type AnvilNode, deployTestToken, startAnvil, type TestToken, transferToken } from "@mp/test-nodes/evm";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { addWallet, catchUp, expectLedgerOk } from "./indexer-fixtures.ts";

const CONFIRMATIONS = 3;

/**
 * A configured token the rate provider does not quote (EURC here): its deposits confirm on chain
 * but wait, PENDING and visible as awaiting_rate, uncredited, until a rate exists; they never hold
 * back the other deposits and never make GET /v1/balance fail. Real anvil, tokens and adapter; the
 * rate provider is the sandbox one, with a EURC rate the test can publish.
 */
describe("deposits of an asset without a USD rate", () => {
  let api: ApiHarness;
  let node: AnvilNode;
  let usdc: TestToken;
  let eurc: TestToken;
  let indexer: Indexer;
  let metrics: IndexerMetrics;
  let eurcRate: string | undefined;

  beforeAll(async () => {
    node = await startAnvil({ chainId: 8453 });
    usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
    eurc = await deployTestToken(node, { name: "Euro Coin", symbol: "EURC", decimals: 6 });
    const sandbox = createSandboxRateProvider();
    const rates: RateProvider = {
      name: "sandbox with a EURC rate once published",
      listRates: () => sandbox.listRates(),
      async rateFor(asset) {
        if (asset === "EURC" && eurcRate !== undefined) {
          return {
            fromCurrency: asset,
            toCurrency: "USD",
            rate: eurcRate,
            expiresAt: new Date(Date.now() + 60_000),
            source: "test",
          };
        }
        return sandbox.rateFor(asset);
      },
    };
    const config = resolveChainConfig("BASE", {
      rpcUrl: node.url,
      confirmations: CONFIRMATIONS,
      pollIntervalMs: 50,
      tokens: [
        { asset: "USDC", address: usdc.address, decimals: 6 },
        { asset: "EURC", address: eurc.address, decimals: 6 },
      ],
    });
    api = await startApiHarness({ overrides: { chains: { BASE: config }, rates } });
    metrics = createIndexerMetrics(api.deps.metrics);
    indexer = createIndexer({
      db: api.db,
      adapter: createEvmAdapter(config),
      config,
      watch: createWatchSet(api.db, "BASE"),
      rates,
      logger: silentLogger(),
      metrics,
    });
  });
  afterAll(async () => {
    await indexer?.stop();
    await api?.stop();
    await node?.stop();
  });

  it("waits visibly for a rate, credits the others meanwhile, and credits it at the first rate", async () => {
    const merchant = await api.merchant();
    const customerId = randomUUID();
    await api.db.query(
      "INSERT INTO customers (id, merchant_id, type, status) VALUES ($1, $2, 'INDIVIDUAL', 'APPROVED')",
      [customerId, merchant.merchantId],
    );
    const address = privateKeyToAccount(`0x${"42".repeat(32)}`).address;
    await addWallet(api.db, { ...merchantOf(merchant), customerId }, "BASE", address);

    const eurcTx = (await transferToken(node, eurc, address, 10_000_000n)).txHash;
    const usdcTx = (await transferToken(node, usdc, address, 5_000_000n)).txHash;
    await node.mine(CONFIRMATIONS);
    await catchUp(indexer);

    const byTx = async () => {
      const res = await api.call(merchant.apiKey, "/v1/deposits");
      expect(res.status).toBe(200);
      return new Map(res.body.data.items.map((d: { tx_hash: string }) => [d.tx_hash, d]));
    };
    let deposits = await byTx();
    expect(deposits.get(usdcTx)).toMatchObject({ status: "CONFIRMED", awaiting_rate: false, amount_usd: "5.000000" });
    expect(deposits.get(eurcTx)).toMatchObject({
      status: "PENDING",
      awaiting_rate: true,
      amount: "10.000000",
      amount_usd: null,
    });
    const awaiting = async () =>
      (await metrics.depositsAwaitingRate.get()).values.find(
        (v) => v.labels.chain === "BASE" && v.labels.asset === "EURC",
      )?.value;
    expect(await awaiting()).toBe(1);

    // The balance answers; the EURC deposit, which cannot be valued, is in neither figure.
    let balance = await api.call(merchant.apiKey, "/v1/balance");
    expect(balance.status).toBe(200);
    const netUsdc = (deposits.get(usdcTx) as { net_amount_usd: string }).net_amount_usd;
    expect(balance.body.data).toMatchObject({ available: netUsdc, pending: "0.000000" });

    // More iterations change nothing until there is a rate.
    await node.mine(1);
    await catchUp(indexer);
    expect((await byTx()).get(eurcTx)).toMatchObject({ status: "PENDING", awaiting_rate: true });

    eurcRate = "1.08";
    await catchUp(indexer);
    deposits = await byTx();
    expect(deposits.get(eurcTx)).toMatchObject({
      status: "CONFIRMED",
      awaiting_rate: false,
      usd_rate: "1.08",
      amount_usd: "10.800000",
    });
    expect(await awaiting()).toBe(0);
    balance = await api.call(merchant.apiKey, "/v1/balance");
    expect(balance.status).toBe(200);
    const net = [usdcTx, eurcTx].map((tx) => (deposits.get(tx) as { net_amount_usd: string }).net_amount_usd);
    const micros = (usd: string) => BigInt(usd.replace(".", ""));
    expect(micros(balance.body.data.available)).toBe(net.map(micros).reduce((a, b) => a + b));
    await expectLedgerOk(api.db);
  });
});

function merchantOf(merchant: TestMerchant) {
  return { merchantId: merchant.merchantId, customerId: "", feeBps: 0, feeFixedMicros: 0n };
}
