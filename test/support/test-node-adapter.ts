import { type ChainAdapter, type ChainConfig, ChainMisconfiguredError, type ObservedTransfer } from "@mp/core";
import { afterAll, beforeAll, expect } from "vitest";
import { late } from "./late.ts";

/** What these helpers need of a Solana or Tron test node. */
interface TestNode {
  mine(count?: number): number[];
  head(): number;
  stop(): Promise<void>;
}

/** A test node started for the calling test file, with the adapter under test talking to it. */
export interface NodeAdapterUnderTest<N extends TestNode> {
  readonly node: N;
  readonly config: ChainConfig;
  readonly adapter: ChainAdapter;
  /**
   * Mines one block with whatever was queued and scans exactly that block (a Solana slot, a Tron
   * height): the step most adapter tests repeat.
   */
  mineAndScan(watch: ReadonlySet<string>): Promise<{ height: number; transfers: ObservedTransfer[] }>;
  /** The adapter's head is the node's newest block, also after blocks were mined. */
  expectHeadFollowsNode(): Promise<void>;
}

/**
 * Starts the node in the file's beforeAll (stops it in afterAll) and builds the adapter on the
 * config `configure` gives. The fields stand for them from the start (see late.ts): use them inside tests.
 */
export function useTestNodeAdapter<N extends TestNode>(options: {
  start: () => Promise<N>;
  configure: (node: N) => ChainConfig;
  createAdapter: (config: ChainConfig) => ChainAdapter;
}): NodeAdapterUnderTest<N> {
  let started: { node: N; config: ChainConfig; adapter: ChainAdapter } | undefined;
  beforeAll(async () => {
    const node = await options.start();
    const config = options.configure(node);
    started = { node, config, adapter: options.createAdapter(config) };
  });
  afterAll(async () => {
    await started?.node.stop();
  });
  const node = late("the test node", () => started?.node);
  const config = late("the chain config", () => started?.config);
  const adapter = late("the adapter", () => started?.adapter);
  return {
    node,
    config,
    adapter,
    async mineAndScan(watch) {
      const [height] = node.mine();
      if (height === undefined) throw new Error("no block mined");
      return { height, transfers: await adapter.scan({ from: height, to: height }, watch) };
    },
    async expectHeadFollowsNode() {
      node.mine(2);
      await expect(adapter.head()).resolves.toBe(node.head());
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
