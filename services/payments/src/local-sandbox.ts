import { EVM_CHAIN_IDS } from "@mp/chain-evm";
import {
  type ChainConfig,
  type ChainId,
  type ChainsConfig,
  EVM_CHAINS,
  type EvmChainId,
  type Logger,
  resolveChainConfig,
} from "@mp/core";
import type { AnvilNode } from "@mp/test-nodes/evm";

/** Confirmations on the local chains: small, so a sandbox deposit confirms within seconds. */
export const SANDBOX_CONFIRMATIONS: Partial<Record<ChainId, number>> = {
  BITCOIN: 2,
  SOLANA: 8,
  TRON: 5,
};
const SANDBOX_EVM_CONFIRMATIONS = 3;
/**
 * How often the indexers and the signer's loops read each local chain: once a second, about a block
 * (Solana's come every 400 ms). At 400-500 ms an idle `pnpm start` cost a third of a core and ~350
 * database transactions a second for ten chains (the signer's loops run at the smallest interval).
 */
const SANDBOX_POLL_MS = 1_000;

export interface LocalSandbox {
  chains: ChainsConfig;
  stop(): Promise<void>;
}

/**
 * `pnpm start` without CHAINS_CONFIG: real local chains for every chain, producing blocks on their
 * own: an anvil per EVM chain with a test USDC deployed, and the Bitcoin, Solana and Tron test nodes
 * of test/nodes. They live in memory and start from genesis at each start; deposits indexed from an
 * earlier run's chains no longer exist on chain, and the indexer reverses them as it would any reorg.
 */
export async function startLocalSandbox(logger: Logger): Promise<LocalSandbox> {
  // The test nodes are imported here, when the local sandbox starts: no other role or command loads them.
  const [{ startAnvil }, { startBitcoinTestNode }, { startSolanaTestNode }, { startTronTestNode }] = await Promise.all([
    import("@mp/test-nodes/evm"),
    import("@mp/test-nodes/bitcoin"),
    import("@mp/test-nodes/solana"),
    import("@mp/test-nodes/tron"),
  ]);
  const stops: Array<() => Promise<void>> = [];
  const chains: ChainsConfig = {};
  try {
    const evm = EVM_CHAINS.map(async (chain) => {
      // The public testnet's chain id (network "testnet", so verifyNetwork holds), so a wallet never
      // mistakes a sandbox chain for a mainnet one. One anvil per chain: the seven chains share one
      // receive address, so a shared node would show every sandbox transfer as a deposit on all seven.
      const node = await startAnvil({ chainId: EVM_CHAIN_IDS[chain].testnet[0] ?? 31337, blockTimeSeconds: 1 });
      stops.push(() => node.stop());
      chains[chain] = await evmChainConfig(chain, node);
    });
    /** A test node serving a local chain: regtest, with a genesis (or block 0) of its own. */
    const testNodeChain = async (
      chain: "BITCOIN" | "SOLANA" | "TRON",
      starting: Promise<{ url: string; tokens?: Iterable<ChainConfig["tokens"][number]>; stop(): Promise<void> }>,
    ) => {
      const node = await starting;
      stops.push(() => node.stop());
      chains[chain] = resolveChainConfig(chain, {
        rpcUrl: node.url,
        network: "regtest",
        confirmations: SANDBOX_CONFIRMATIONS[chain],
        pollIntervalMs: SANDBOX_POLL_MS,
        ...(node.tokens ? { tokens: [...node.tokens] } : {}),
      });
    };
    // Every start settles before a failure is reported: a node still starting when another failed
    // would otherwise be recorded in `stops` after they were run, and keep running.
    const starts = await Promise.allSettled([
      ...evm,
      testNodeChain("BITCOIN", startBitcoinTestNode({ network: "regtest", blockIntervalMs: 2_000 })),
      testNodeChain("SOLANA", startSolanaTestNode({ blockIntervalMs: 400 })),
      testNodeChain("TRON", startTronTestNode({ blockIntervalMs: 1_000 })),
    ]);
    const failed = starts.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
  } catch (error) {
    await Promise.allSettled(stops.map((stop) => stop()));
    throw error;
  }
  logger.info({ chains: Object.keys(chains) }, "local sandbox chains running");
  return {
    chains,
    async stop() {
      await Promise.allSettled(stops.map((stop) => stop()));
    },
  };
}

async function evmChainConfig(chain: EvmChainId, node: AnvilNode): Promise<ChainConfig> {
  const { ANVIL_DEPLOYER, deployTestToken } = await import("@mp/test-nodes/evm");
  const usdc = await deployTestToken(node, { name: "USD Coin (sandbox)", symbol: "USDC", decimals: 6 });
  return resolveChainConfig(chain, {
    rpcUrl: node.url,
    network: "testnet",
    confirmations: SANDBOX_EVM_CONFIRMATIONS,
    pollIntervalMs: SANDBOX_POLL_MS,
    tokens: [{ asset: "USDC", address: usdc.address, decimals: usdc.decimals }],
    // anvil's first dev account deployed the token and holds its supply: the faucet sends from it.
    faucetPrivateKey: ANVIL_DEPLOYER.privateKey,
  });
}
