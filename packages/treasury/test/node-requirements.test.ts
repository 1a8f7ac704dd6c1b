import { createBitcoinAdapter } from "@mp/chain-bitcoin";
import { createEvmAdapter, HISTORY_DEPTH } from "@mp/chain-evm";
import { createSolanaAdapter } from "@mp/chain-solana";
import { createTronAdapter } from "@mp/chain-tron";
import {
  type ChainAdapter,
  type ChainConfig,
  ChainMisconfiguredError,
  createLogger,
  resolveChainConfig,
  silentLogger,
} from "@mp/core";
import { createTreasuryKeys, createWatchSet } from "@mp/custody";
import { createIndexer, getIndexerStates } from "@mp/indexer";
import { createSandboxRateProvider } from "@mp/providers";
import { startBitcoinTestNode } from "@mp/test-nodes/bitcoin";
import { startSolanaTestNode } from "@mp/test-nodes/solana";
import { startTronTestNode, TronKey } from "@mp/test-nodes/tron";
import { afterAll, describe, expect, it } from "vitest";
import { createBitcoinSender } from "../../../chains/bitcoin/src/send/bitcoin-sender.ts";
import { createEvmSender } from "../../../chains/evm/src/send/evm-sender.ts";
import { createSolanaSender } from "../../../chains/solana/src/send/solana-sender.ts";
import { createTronSender } from "../../../chains/tron/src/send/tron-sender.ts";
import { KEY_SCHEMES } from "../../../services/payments/src/chain-families.ts";
import { startAnvilWithUsdc } from "../../../test/support/anvil-usdc.ts";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { TEST_LEASE_SECONDS } from "../../../test/support/test-leases.ts";
import type { ChainSender } from "../src/chain-sender.ts";
import { verifiedSenders } from "../src/create-chain-senders.ts";
import { TEST_TREASURY_MNEMONIC } from "./support/evm-treasury.ts";

/**
 * docs/chains.md "Node requirements": what each family's node must offer is checked when the service starts
 * (the indexer's verifyNetwork, the signer's verifiedSenders), and a node that lacks it stops that
 * chain with chain_misconfigured naming the capability. Bitcoin needs no -txindex.
 */
const t = useTestDatabase();
const keys = createTreasuryKeys(TEST_TREASURY_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
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

/** anvil (chain id 8453) with USDC and history deeper than the check looks at. */
async function evmNode() {
  const anvil = await startAnvilWithUsdc({ chainId: 8453 });
  stops.push(() => anvil.node.stop());
  await anvil.node.mine(HISTORY_DEPTH + 20);
  return anvil;
}

/**
 * A node in front of `url` that answers `refuse(method, params)` instead when it returns one (a
 * JSON-RPC error, or `{ result }`), as a node or provider lacking a capability does.
 */
function nodeLacking(
  url: string,
  refuse: (method: string, params: unknown[]) => { code: number; message: string } | { result: unknown } | undefined,
): typeof fetch {
  return async (_input, init) => {
    const request = JSON.parse(String(init?.body)) as { id: number; method: string; params: unknown[] };
    const answer = Array.isArray(request) ? undefined : refuse(request.method, request.params);
    if (!answer) return fetch(url, init);
    const body = "result" in answer ? { result: answer.result } : { error: answer };
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: request.id, ...body }), {
      headers: { "content-type": "application/json" },
    });
  };
}

/** Starts an indexer of `config`'s chain on `adapter`: the error its chain stopped with at start, if any. */
async function stoppedAtStart(config: ChainConfig, adapter: ChainAdapter): Promise<string | null | undefined> {
  const indexer = createIndexer({
    db: t.db,
    adapter,
    config,
    watch: createWatchSet(t.db, config.chain),
    rates: createSandboxRateProvider(),
    logger: silentLogger(),
    leaseSeconds: TEST_LEASE_SECONDS,
  });
  await indexer.start();
  return (await getIndexerStates(t.db)).find((s) => s.chain === config.chain)?.stoppedError;
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

  it("Tron: a node that lists no internal transactions (java-tron's default) is refused by the indexer, naming it; the signer needs none", async () => {
    const configOf = async (internalTransactions: boolean) => {
      const node = await startTronTestNode({
        seed: `requirements-internal-${internalTransactions}`,
        internalTransactions,
      });
      stops.push(() => node.stop());
      // Contract calls carrying TRX that the contract pays on: what the check looks at.
      for (let i = 0; i < 3; i++) {
        node.forwardTrx([{ to: TronKey.fromLabel(`requirements:internal:${i}`).address, amount: 1_000_000n }]);
      }
      node.mine();
      return resolveChainConfig("TRON", { rpcUrl: node.url, network: "regtest", tokens: [...node.tokens] });
    };
    const without = await configOf(false);
    await expect(createTronAdapter(without).verifyNetwork()).rejects.toEqual(
      misconfigured("internal_transactions", /lists no internal transactions.*vm\.saveInternalTx = true/),
    );
    await expect(senderOn(without).verifyNode?.()).resolves.toBeUndefined();
    await expect(createTronAdapter(await configOf(true)).verifyNetwork()).resolves.toBeUndefined();
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

  it("EVM: a node without eth_getLogs, or without the history where the indexer goes on, is refused by the indexer, naming it", async () => {
    const anvil = await evmNode();
    const config = resolveChainConfig("BASE", anvil.baseChain());
    const head = await createEvmAdapter(config).head();
    const deep = head - HISTORY_DEPTH - 10;
    const below = (params: unknown[]) => Number(params[0]) < head - HISTORY_DEPTH;
    const fromOf = (params: unknown[]) => Number((params[0] as { fromBlock: string }).fromBlock);
    const on = (refuse: Parameters<typeof nodeLacking>[1]) =>
      createEvmAdapter(config, { fetch: nodeLacking(anvil.node.url, refuse) });

    // The node as it is: everything there.
    await expect(createEvmAdapter(config).verifyNetwork(deep)).resolves.toBeUndefined();
    // No eth_getLogs at all (a provider that disables it).
    const noLogs = on((method) =>
      method === "eth_getLogs"
        ? { code: -32601, message: "the method eth_getLogs does not exist/is not available" }
        : undefined,
    );
    await expect(noLogs.verifyNetwork(deep)).rejects.toEqual(
      misconfigured("eth_getLogs", /does not offer eth_getLogs.*token deposits/),
    );
    // Blocks expired below the head (null, as a node without that history answers) ...
    const expired = on((method, params) =>
      method === "eth_getBlockByNumber" && below(params) ? { result: null } : undefined,
    );
    await expect(expired.verifyNetwork(deep)).rejects.toEqual(
      misconfigured("eth_getBlockByNumber", new RegExp(`no history at block ${deep}, where the indexer goes on`)),
    );
    // ... or logs pruned there (EIP-4444's error).
    const pruned = on((method, params) =>
      method === "eth_getLogs" && fromOf(params) < head - HISTORY_DEPTH
        ? { code: 4444, message: "pruned history unavailable" }
        : undefined,
    );
    await expect(pruned.verifyNetwork(deep)).rejects.toEqual(
      misconfigured("eth_getLogs", /no history at block \d+.*pruned history unavailable/),
    );
    // Near the head an empty answer may be a lagging backend, not missing history: retried, not judged.
    await expect(expired.verifyNetwork(head - 5)).resolves.toBeUndefined();
    await expect(pruned.verifyNetwork(head - 5)).resolves.toBeUndefined();
  });

  it("EVM: the signer refuses a node of another chain id than the configured network's, naming it", async () => {
    const anvil = await evmNode();
    const sender = (network: "mainnet" | "testnet") => {
      const config = resolveChainConfig("BASE", anvil.baseChain({ network }));
      return createEvmSender({ config, keys, db: t.db, logger: silentLogger() });
    };
    // BASE mainnet is chain id 8453, the node's; BASE testnet is 84532.
    await expect(sender("mainnet").verifyNode?.()).resolves.toBeUndefined();
    await expect(sender("testnet").verifyNode?.()).rejects.toEqual(
      misconfigured("eth_chainId", /CHAINS_CONFIG\.BASE\.network is testnet \(chain id 84532\).*serves chain id 8453/),
    );
  });

  it("the indexer stops an EVM chain at start when the node lacks the history from its position on", async () => {
    const anvil = await evmNode();
    const head = await createEvmAdapter(resolveChainConfig("BASE", anvil.baseChain())).head();
    const config = resolveChainConfig("BASE", anvil.baseChain({ startHeight: 1 }));
    const fetchImpl = nodeLacking(anvil.node.url, (method, params) =>
      method === "eth_getBlockByNumber" && Number(params[0]) < head - HISTORY_DEPTH ? { result: null } : undefined,
    );
    expect(await stoppedAtStart(config, createEvmAdapter(config, { fetch: fetchImpl }))).toMatch(
      /no history at block 1, where the indexer goes on/,
    );
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
    expect(await stoppedAtStart(config, createSolanaAdapter(config))).toMatch(
      /no transaction history.*--enable-rpc-transaction-history/,
    );
  });
});
