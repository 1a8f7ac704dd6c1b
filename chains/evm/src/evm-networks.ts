import type { EvmChainId, KnownNetworks } from "@mp/core";

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
