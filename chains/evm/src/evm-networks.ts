import {
  type ChainConfig,
  ChainMisconfiguredError,
  type EvmChainId,
  expectedNetworks,
  type KnownNetworks,
} from "@mp/core";

/**
 * The chain ids (eth_chainId) each EVM chain has on each network, as data. `testnet` lists the
 * public test networks in use (Sepolia-based where one exists). The local sandbox runs anvil with
 * the first testnet id of each chain, so a wallet never mistakes a sandbox chain for a mainnet one.
 */
export const EVM_CHAIN_IDS: Readonly<Record<EvmChainId, KnownNetworks<number>>> = {
  BASE: { mainnet: [8453], testnet: [84532] },
  ARBITRUM: { mainnet: [42161], testnet: [421614] },
  POLYGON: { mainnet: [137], testnet: [80002] },
  // Alfajores, and Celo Sepolia which replaces it.
  CELO: { mainnet: [42220], testnet: [44787, 11142220] },
  BSC: { mainnet: [56], testnet: [97] },
  // Sepolia, Holesky, Hoodi.
  ETHEREUM: { mainnet: [1], testnet: [11155111, 17000, 560048] },
  OPTIMISM: { mainnet: [10], testnet: [11155420] },
};

/**
 * Refuses a node whose eth_chainId is not `chain`'s on `network` (the indexer would index another
 * chain; the sender, signing for the node's chain id, would pay out on it). `regtest` is a local
 * node (anvil), whose id is its own: any is accepted.
 */
export function checkEvmChainId(chain: EvmChainId, network: ChainConfig["network"], chainId: number): void {
  const expected = expectedNetworks(network, EVM_CHAIN_IDS[chain]);
  if (expected === null || expected.includes(chainId)) return;
  throw new ChainMisconfiguredError(
    `CHAINS_CONFIG.${chain}.network is ${network} (chain id ${expected.join(" or ")}) but the node at CHAINS_CONFIG.${chain}.rpcUrl serves chain id ${chainId}`,
    { details: { network, expected, chainId, capability: "eth_chainId" } },
  );
}
