import {
  type ChainAdapter,
  type ChainConfig,
  ChainMisconfiguredError,
  type ObservedTransfer,
  resolveChainConfig,
  type SandboxFaucet,
} from "@mp/core";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { late } from "./late.ts";

/** What these helpers need of a Solana or Tron test node. */
interface TestNode {
  readonly url: string;
  readonly tokens: ReadonlyArray<{ asset: string; address: string; decimals: number }>;
  mine(count?: number): number[];
  head(): number;
  stop(): Promise<void>;
}

/** A test node started for the calling test file, with the adapter under test talking to it. */
export interface NodeAdapterUnderTest<N extends TestNode> {
  readonly node: N;
  readonly config: ChainConfig;
  readonly adapter: ChainAdapter;
  /** Two wallets made afresh for each test: by the tests' convention alice is watched, bob is not. */
  readonly alice: string;
  readonly bob: string;
  /**
   * Mines one block with whatever was queued and scans exactly that block (a Solana slot, a Tron
   * height): the step most adapter tests repeat.
   */
  mineAndScan(watch: ReadonlySet<string>): Promise<{ height: number; transfers: ObservedTransfer[] }>;
  /** The adapter's head is the node's newest block, also after blocks were mined. */
  expectHeadFollowsNode(): Promise<void>;
  /** The faucet's sends to alice (an amount per asset), mined in one block, are what the scan of it finds, in order. */
  expectFaucetSendsFound(faucet: SandboxFaucet, amounts: Readonly<Record<string, bigint>>): Promise<void>;
  /** The faucet refuses a malformed address, an unknown asset and a zero amount of `asset`, naming the field. */
  expectFaucetRefusesBadInput(faucet: SandboxFaucet, asset: string, malformedAddress: string): Promise<void>;
}

/**
 * Starts the node in the file's beforeAll (stops it in afterAll) and builds the adapter for `chain`
 * on it (its tokens, network regtest). The fields stand for them from the start (see late.ts): use
 * them inside tests.
 */
export function useTestNodeAdapter<N extends TestNode>(options: {
  chain: ChainConfig["chain"];
  start: () => Promise<N>;
  createAdapter: (config: ChainConfig) => ChainAdapter;
  /** A new wallet address. */
  newWallet: () => string;
}): NodeAdapterUnderTest<N> {
  let started: { node: N; config: ChainConfig; adapter: ChainAdapter } | undefined;
  let wallets: { alice: string; bob: string } | undefined;
  beforeAll(async () => {
    const node = await options.start();
    const config = resolveChainConfig(options.chain, {
      rpcUrl: node.url,
      tokens: [...node.tokens],
      network: "regtest",
    });
    started = { node, config, adapter: options.createAdapter(config) };
  });
  afterAll(async () => {
    await started?.node.stop();
  });
  beforeEach(() => {
    wallets = { alice: options.newWallet(), bob: options.newWallet() };
  });
  const node = late("the test node", () => started?.node);
  const config = late("the chain config", () => started?.config);
  const adapter = late("the adapter", () => started?.adapter);
  const wallet = late("the wallets", () => wallets);
  const mineAndScan = async (watch: ReadonlySet<string>) => {
    const [height] = node.mine();
    if (height === undefined) throw new Error("no block mined");
    return { height, transfers: await adapter.scan({ from: height, to: height }, watch) };
  };
  return {
    node,
    config,
    adapter,
    get alice() {
      return wallet.alice;
    },
    get bob() {
      return wallet.bob;
    },
    mineAndScan,
    async expectHeadFollowsNode() {
      node.mine(2);
      await expect(adapter.head()).resolves.toBe(node.head());
    },
    async expectFaucetSendsFound(faucet, amounts) {
      const to = wallet.alice;
      const sent: [string, string, bigint][] = [];
      for (const [asset, amount] of Object.entries(amounts)) {
        sent.push([(await faucet.send(to, asset, amount)).txHash, asset, amount]);
      }
      const { transfers } = await mineAndScan(new Set([to]));
      expect(transfers.map((t) => [t.txHash, t.asset, t.amountRaw])).toEqual(sent);
    },
    async expectFaucetRefusesBadInput(faucet, asset, malformedAddress) {
      const refused = (field: string) => ({ code: "validation_error", field });
      await expect(faucet.send(malformedAddress, asset, 1n)).rejects.toMatchObject(refused("to"));
      await expect(faucet.send(wallet.bob, "DOGE", 1n)).rejects.toMatchObject(refused("asset"));
      await expect(faucet.send(wallet.bob, asset, 0n)).rejects.toMatchObject(refused("amount"));
    },
  };
}

/**
 * The adapter's verifyNetwork against a node whose genesis (block 0's id, a cluster's genesis hash)
 * is `genesis[...]`, as `adapterOn` fakes it: accepted when it is the configured network's, refused
 * as misconfigured when it is the other network's.
 */
export async function expectNetworkVerifiedByGenesis(
  adapterOn: (network: "mainnet" | "testnet", genesis: string) => ChainAdapter,
  genesis: { mainnet: string; testnet: string },
): Promise<void> {
  await expect(adapterOn("mainnet", genesis.mainnet).verifyNetwork()).resolves.toBeUndefined();
  await expect(adapterOn("testnet", genesis.testnet).verifyNetwork()).resolves.toBeUndefined();
  await expect(adapterOn("testnet", genesis.mainnet).verifyNetwork()).rejects.toBeInstanceOf(ChainMisconfiguredError);
  await expect(adapterOn("mainnet", genesis.testnet).verifyNetwork()).rejects.toBeInstanceOf(ChainMisconfiguredError);
}
