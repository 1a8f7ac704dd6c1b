import { createBitcoinAdapter } from "@mp/chain-bitcoin";
import { createSolanaAdapter } from "@mp/chain-solana";
import { createTronAdapter } from "@mp/chain-tron";
import { type ChainConfig, ChainMisconfiguredError, createLogger, resolveChainConfig, silentLogger } from "@mp/core";
import { createTreasuryKeys, createWatchSet } from "@mp/custody";
import { createIndexer, getIndexerStates } from "@mp/indexer";
import { createSandboxRateProvider } from "@mp/providers";
import { startBitcoinTestNode } from "@mp/test-nodes/bitcoin";
import { startSolanaTestNode } from "@mp/test-nodes/solana";
import { startTronTestNode, TronKey } from "@mp/test-nodes/tron";
import { afterAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { TEST_LEASE_SECONDS } from "../../../test/support/test-leases.ts";
import { createBitcoinSender } from "../src/bitcoin/bitcoin-sender.ts";
import type { ChainSender } from "../src/chain-sender.ts";
import { verifiedSenders } from "../src/create-chain-senders.ts";
import { createSolanaSender } from "../src/solana/solana-sender.ts";
import { createTronSender } from "../src/tron/tron-sender.ts";
import { TEST_TREASURY_MNEMONIC } from "./support/evm-treasury.ts";

/**
 * docs/chains.md "Node requirements": what each family's node must offer is checked when the service starts
 * (the indexer's verifyNetwork, the signer's verifiedSenders), and a node that lacks it stops that
 * chain with chain_misconfigured naming the capability. Bitcoin needs no -txindex.
 */
const t = useTestDatabase();
const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest" });
const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const senderOn = (config: ChainConfig): ChainSender => {
  const options = { config, keys, db: t.db, logger: silentLogger() };
  if (config.chain === "SOLANA") return createSolanaSender(options);
  if (config.chain === "TRON") return createTronSender(options);
  return createBitcoinSender(options);
};

async function solanaNode(transactionHistory: boolean) {
  const node = await startSolanaTestNode({ seed: `requirements-${transactionHistory}`, transactionHistory });
  stops.push(() => node.stop());
  node.mine();
  return resolveChainConfig("SOLANA", { rpcUrl: node.url, network: "regtest", tokens: [...node.tokens] });
}

async function tronNode(transactionHistory: boolean) {
  const node = await startTronTestNode({ seed: `requirements-${transactionHistory}`, transactionHistory });
  stops.push(() => node.stop());
  // A block holding a transaction: what the check looks at.
  node.transfer(TronKey.fromLabel("requirements:payee").address, 1_000_000n);
  node.mine();
  return resolveChainConfig("TRON", { rpcUrl: node.url, network: "regtest", tokens: [...node.tokens] });
}

async function bitcoinNode() {
  const node = await startBitcoinTestNode({ walletSeed: "requirements" });
  stops.push(() => node.stop());
  return { node, config: resolveChainConfig("BITCOIN", { rpcUrl: node.url, network: "regtest" }) };
}

const misconfigured = (capability: string, text: RegExp) =>
  expect.objectContaining({
    code: "chain_misconfigured",
    message: expect.stringMatching(text),
    details: expect.objectContaining({ capability }),
  });

describe("node requirements, checked at start", () => {
  it("Solana: a node without transaction history is refused by the indexer and the signer, naming it", async () => {
    const without = await solanaNode(false);
    const error = misconfigured("transaction_history", /no transaction history.*--enable-rpc-transaction-history/);
    await expect(createSolanaAdapter(without).verifyNetwork()).rejects.toEqual(error);
    await expect(senderOn(without).verifyNode?.()).rejects.toBeInstanceOf(ChainMisconfiguredError);
    await expect(senderOn(without).verifyNode?.()).rejects.toEqual(error);
    const withHistory = await solanaNode(true);
    await expect(createSolanaAdapter(withHistory).verifyNetwork()).resolves.toBeUndefined();
    await expect(senderOn(withHistory).verifyNode?.()).resolves.toBeUndefined();
  });

  it("Tron: a node that keeps no transaction receipts is refused by the indexer and the signer, naming it", async () => {
    const without = await tronNode(false);
    const error = misconfigured("transaction_info", /keeps no transaction receipts.*storage\.transHistory\.switch/);
    await expect(createTronAdapter(without).verifyNetwork()).rejects.toEqual(error);
    await expect(senderOn(without).verifyNode?.()).rejects.toEqual(error);
    const withReceipts = await tronNode(true);
    await expect(createTronAdapter(withReceipts).verifyNetwork()).resolves.toBeUndefined();
    await expect(senderOn(withReceipts).verifyNode?.()).resolves.toBeUndefined();
  });

  it("Bitcoin: no -txindex is needed; blocks the indexer must read that a pruned node dropped stop the chain", async () => {
    const { node, config } = await bitcoinNode();
    expect(node.txindex).toBe(false);
    await expect(createBitcoinAdapter(config).verifyNetwork()).resolves.toBeUndefined();
    node.mine(3);
    node.prune(node.height - 1);
    const adapter = createBitcoinAdapter(config);
    await expect(adapter.scan({ from: node.height - 2, to: node.height }, new Set())).rejects.toEqual(
      misconfigured(
        "blocks",
        /pruned blocks the indexer still has to read \(from height \d+: Block not available \(pruned data\)\)/,
      ),
    );
    // The blocks it kept are read as before.
    await expect(adapter.scan({ from: node.height - 1, to: node.height }, new Set())).resolves.toEqual([]);
  });

  it("the signer leaves out a chain whose node lacks a capability, with an error naming it; the others go on", async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "warn", destination: { write: (line: string) => lines.push(line) } });
    const { config: bitcoin } = await bitcoinNode();
    const senders = [senderOn(await solanaNode(false)), senderOn(await tronNode(true)), senderOn(bitcoin)];
    const kept = await verifiedSenders(senders, logger);
    expect(kept.map((s) => s.chain)).toEqual(["TRON", "BITCOIN"]);
    const logged = lines.map((line) => JSON.parse(line) as { chain: string; code: string; err: string });
    expect(logged).toEqual([
      expect.objectContaining({
        chain: "SOLANA",
        code: "chain_misconfigured",
        err: expect.stringMatching(/transaction history/),
      }),
    ]);
  });

  it("the indexer stops the chain at start with the missing capability, shown in its state", async () => {
    const config = await solanaNode(false);
    const indexer = createIndexer({
      db: t.db,
      adapter: createSolanaAdapter(config),
      config,
      watch: createWatchSet(t.db, "SOLANA"),
      rates: createSandboxRateProvider(),
      logger: silentLogger(),
      leaseSeconds: TEST_LEASE_SECONDS,
    });
    await indexer.start();
    const state = (await getIndexerStates(t.db)).find((s) => s.chain === "SOLANA");
    expect(state?.stoppedError).toMatch(/no transaction history.*--enable-rpc-transaction-history/);
  });
});
