import { createBitcoinAdapter } from "@mp/chain-bitcoin";
import { createEvmAdapter } from "@mp/chain-evm";
import { createSolanaAdapter } from "@mp/chain-solana";
import { createTronAdapter } from "@mp/chain-tron";
import {
  type ChainAdapter,
  type ChainConfig,
  type ChainConfigInput,
  type ChainId,
  resolveChainConfig,
  toUsdMicros,
} from "@mp/core";
import { SANDBOX_RATES } from "@mp/providers";
import { deriveTestAddresses, startBitcoinTestNode } from "@mp/test-nodes/bitcoin";
import { deployTestToken, startAnvil, transferToken } from "@mp/test-nodes/evm";
import { startSolanaTestNode } from "@mp/test-nodes/solana";
import { startTronTestNode, TronKey } from "@mp/test-nodes/tron";
import { Keypair } from "@solana/web3.js";
import { privateKeyToAccount } from "viem/accounts";
import { startTcpProxy } from "../support/tcp-proxy.ts";

/** Required confirmations in the suite: a deposit in block h is confirmed once the head reaches h + 2. */
export const CONFIRMATIONS = 3;

/**
 * One chain family behind the operations the reliability suite needs, on a real (anvil) or test
 * node. Every payment is mined into a block of its own before pay() returns.
 */
export interface TestChain {
  readonly chain: ChainId;
  readonly config: ChainConfig;
  /** Asset pay() sends, and the USD micro-dollars `amount` of it is worth (sandbox rates). */
  readonly asset: string;
  usdMicros(amount: bigint): bigint;
  /** A smallest amount that is a sensible deposit (i = 1, 2, ... gives distinct amounts). */
  amount(i: number): bigint;
  /** An adapter talking to the node through what stopNode() cuts. */
  adapter(): ChainAdapter;
  /** A fresh receive address this test controls, as a wallet would show it. */
  address(): string;
  pay(to: string, amount: bigint): Promise<string>;
  mine(blocks: number): Promise<void>;
  head(): Promise<number>;
  /** Replaces the last `depth` blocks; `keep` transactions are mined again in the new branch, the others vanish. */
  reorg(depth: number, keep: readonly string[]): Promise<void>;
  /** Height of the block holding `txHash` on the node's current chain, or null when it is not on it. */
  txHeight(txHash: string): Promise<number | null>;
  /** Outage: the indexer's RPC is refused until restartNode(). */
  stopNode(): Promise<void>;
  restartNode(): Promise<void>;
  close(): Promise<void>;
}

/** The chain as the suite configures it, and its adapter on that config (a short RPC timeout). */
function configured(
  chain: ChainId,
  input: ChainConfigInput,
  createAdapter: (config: ChainConfig, options: { timeoutMs: number }) => ChainAdapter,
): Pick<TestChain, "chain" | "config" | "adapter"> {
  const config = resolveChainConfig(chain, {
    confirmations: CONFIRMATIONS,
    pollIntervalMs: 50,
    batchSize: 50,
    ...input,
  });
  return { chain, config, adapter: () => createAdapter(config, { timeoutMs: 2_000 }) };
}

/** A 6-decimal USD stablecoin: a base unit is a micro-dollar; deposit i is i dollars and a few odd micro-dollars, distinct per chain. */
const stablecoin = (asset: string, oddMicros: bigint): Pick<TestChain, "asset" | "usdMicros" | "amount"> => ({
  asset,
  usdMicros: (amount) => amount,
  amount: (i) => 1_000_000n * BigInt(i) + oddMicros,
});

export async function startEvmChain(): Promise<TestChain> {
  const node = await startAnvil({ chainId: 8453 });
  const usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
  // The indexer reaches anvil through a proxy, so an outage can be cut and restored with the chain kept.
  const proxy = await startTcpProxy({ host: "127.0.0.1", port: node.port });
  let next = 1;
  return {
    ...configured(
      "BASE",
      {
        rpcUrl: `http://127.0.0.1:${proxy.port}`,
        tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
      },
      createEvmAdapter,
    ),
    ...stablecoin("USDC", 12_345n),
    address: () => privateKeyToAccount(`0x${(0x1000 + next++).toString(16).padStart(64, "0")}`).address,
    async pay(to, amount) {
      return (await transferToken(node, usdc, to, amount)).txHash;
    },
    mine: (blocks) => node.mine(blocks),
    head: () => node.blockNumber(),
    async reorg(depth, keep) {
      const raws = await Promise.all(
        keep.map(
          (hash) =>
            node.publicClient.request({
              method: "eth_getRawTransactionByHash" as never,
              params: [hash] as never,
            }) as Promise<`0x${string}`>,
        ),
      );
      await node.reorg(
        depth,
        raws.map((transaction) => ({ transaction, blockOffset: 0 })),
      );
    },
    async txHeight(txHash) {
      const receipt = await node.publicClient
        .getTransactionReceipt({ hash: txHash as `0x${string}` })
        .catch(() => null);
      return receipt ? Number(receipt.blockNumber) : null;
    },
    stopNode: () => proxy.down(),
    restartNode: () => proxy.up(),
    async close() {
      await proxy.close();
      await node.stop();
    },
  };
}

export async function startBitcoinChain(): Promise<TestChain> {
  const node = await startBitcoinTestNode();
  const addresses = deriveTestAddresses(500, "regtest", "indexer-suite");
  let next = 0;
  const rate = SANDBOX_RATES.BTC ?? "65000.00";
  return {
    ...configured("BITCOIN", { rpcUrl: node.url, network: "regtest" }, createBitcoinAdapter),
    asset: "BTC",
    usdMicros: (amount) => toUsdMicros(amount, 8, rate),
    amount: (i) => 10_000n * BigInt(i) + 123n,
    address() {
      const address = addresses[next++];
      if (!address) throw new Error("out of test addresses");
      return address;
    },
    async pay(to, amount) {
      const { txid } = node.send(to, amount);
      node.mine(1);
      return txid;
    },
    ...onTestNode(
      node,
      () => node.height,
      (height) => bitcoinBlockTransactions(node.url, height),
    ),
    async txHeight(txid) {
      // The suite's transactions are recent: look through the last blocks.
      for (let h = node.height; h > Math.max(0, node.height - 60); h--) {
        if ((await bitcoinBlockTransactions(node.url, h)).includes(txid)) return h;
      }
      return null;
    },
  };
}

/**
 * What the three in-process test nodes (Bitcoin, Solana, Tron) answer alike: mining, outages, and a
 * reorg in which every transaction of the replaced blocks is either in `keep` (re-mined in the first
 * new block) or dropped. `blockTransactions` reads a block's transactions over the node's own API.
 */
function onTestNode(
  node: {
    mine(count: number): unknown;
    reorg(depth: number, options: { drop: readonly string[] }): unknown;
    stop(): Promise<void>;
    restart(): Promise<void>;
  },
  head: () => number,
  blockTransactions: (height: number) => Promise<string[]>,
): Pick<TestChain, "mine" | "head" | "reorg" | "stopNode" | "restartNode" | "close"> {
  return {
    async mine(blocks) {
      node.mine(blocks);
    },
    head: async () => head(),
    async reorg(depth, keep) {
      const kept = new Set(keep);
      const top = head();
      const dropped: string[] = [];
      for (let height = top - depth + 1; height <= top; height++) {
        dropped.push(...(await blockTransactions(height)).filter((tx) => !kept.has(tx)));
      }
      node.reorg(depth, { drop: dropped });
    },
    stopNode: () => node.stop(),
    restartNode: () => node.restart(),
    close: () => node.stop(),
  };
}

/**
 * txHeight on a Solana or Tron test node: the height `landedAt` says the transaction landed at (undefined:
 * it failed or is not in a block), if that block, read over the node's API, holds it.
 */
function servedAt(
  blockTransactions: (height: number) => Promise<string[]>,
  landedAt: (tx: string) => number | undefined,
): TestChain["txHeight"] {
  return async (tx) => {
    const height = landedAt(tx);
    if (height === undefined) return null;
    return (await blockTransactions(height)).includes(tx) ? height : null;
  };
}

async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return response.json();
}

/** Non-coinbase txids of the block at `height`, read over the node's RPC. */
async function bitcoinBlockTransactions(url: string, height: number): Promise<string[]> {
  const parsed = new URL(url);
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString("base64")}`;
  const call = async (method: string, params: unknown[]): Promise<unknown> => {
    const reply = (await postJson(
      `http://${parsed.host}/`,
      { jsonrpc: "1.0", id: 1, method, params },
      { authorization },
    )) as { result: unknown };
    return reply.result;
  };
  const hash = await call("getblockhash", [height]);
  const block = (await call("getblock", [hash, 1])) as { tx: string[] };
  return block.tx.slice(1);
}

let solanaPayments = 0;

export async function startSolanaChain(): Promise<TestChain> {
  const node = await startSolanaTestNode();
  const usdcMint = node.tokens.find((t) => t.asset === "USDC")?.address;
  if (!usdcMint) throw new Error("the Solana test node has no USDC");
  const signatures = (slot: number) => solanaBlockSignatures(node.url, slot);
  return {
    ...configured("SOLANA", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" }, createSolanaAdapter),
    ...stablecoin("USDC", 777n),
    address: () => Keypair.generate().publicKey.toBase58(),
    async pay(to, amount) {
      // Every payment a distinct transaction: the node signs against the finalized blockhash (genesis for
      // the first 32 blocks), so two equal payments to an address whose token account a reorg removed
      // would otherwise be byte-identical, one signature for two payments.
      const signature = node.send([
        { kind: "token", mint: usdcMint, to, amount },
        { kind: "memo", text: `payment ${++solanaPayments}` },
      ]);
      node.mine();
      return signature;
    },
    // The test node's blocks are contiguous slots unless skipSlots() was used (the suite never does).
    ...onTestNode(node, () => node.head(), signatures),
    txHeight: servedAt(signatures, (signature) => {
      const landed = node.transaction(signature);
      return landed && !landed.failed && node.blockhash(landed.slot) !== undefined ? landed.slot : undefined;
    }),
  };
}

async function solanaBlockSignatures(url: string, slot: number): Promise<string[]> {
  const reply = (await postJson(url, {
    jsonrpc: "2.0",
    id: 1,
    method: "getBlock",
    params: [slot, { encoding: "json", transactionDetails: "signatures", maxSupportedTransactionVersion: 0 }],
  })) as { result: { signatures?: string[] } | null };
  return reply.result?.signatures ?? [];
}

let tronAddresses = 0;

export async function startTronChain(): Promise<TestChain> {
  const node = await startTronTestNode();
  const transactions = (height: number) => tronBlockTransactions(node.url, height);
  return {
    ...configured("TRON", { rpcUrl: node.url, tokens: [...node.tokens], network: "regtest" }, createTronAdapter),
    ...stablecoin("USDT", 4_321n),
    address: () => TronKey.fromLabel(`indexer-suite-${process.pid}-${tronAddresses++}`).address,
    async pay(to, amount) {
      const txID = node.transferToken(to, amount);
      node.mine();
      return txID;
    },
    ...onTestNode(node, () => node.head(), transactions),
    txHeight: servedAt(transactions, (txID) => {
      const landed = node.transaction(txID);
      return landed && !landed.failed ? landed.height : undefined;
    }),
  };
}

async function tronBlockTransactions(url: string, height: number): Promise<string[]> {
  const block = (await postJson(`${url}/wallet/getblockbynum`, { num: height })) as {
    transactions?: Array<{ txID: string }>;
  };
  return (block.transactions ?? []).map((tx) => tx.txID);
}

export const TEST_CHAINS: ReadonlyArray<{ name: string; start: () => Promise<TestChain> }> = [
  { name: "EVM (anvil)", start: startEvmChain },
  { name: "Bitcoin (test node)", start: startBitcoinChain },
  { name: "Solana (test node)", start: startSolanaChain },
  { name: "Tron (test node)", start: startTronChain },
];
