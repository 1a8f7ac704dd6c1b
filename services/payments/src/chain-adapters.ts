import { createBitcoinAdapter, createBitcoinFaucet } from "@mp/chain-bitcoin";
import { createEvmAdapter, createEvmFaucet } from "@mp/chain-evm";
import { createSolanaAdapter, createSolanaFaucet } from "@mp/chain-solana";
import { createTronAdapter, createTronFaucet } from "@mp/chain-tron";
import { type ChainAdapter, type ChainConfig, chainFamily, type SandboxFaucet } from "@mp/core";

/** The adapter of a configured chain: the one place that knows which family implements which chain. */
export function createChainAdapter(config: ChainConfig): ChainAdapter {
  switch (chainFamily(config.chain)) {
    case "evm":
      return createEvmAdapter(config);
    case "bitcoin":
      return createBitcoinAdapter(config);
    case "solana":
      return createSolanaAdapter(config);
    case "tron":
      return createTronAdapter(config);
  }
}

/**
 * A faucet for a local sandbox chain. Only chains that carry a faucet key (EVM) or run on a local
 * test node get one; a production deployment has none, so POST /v1/sandbox/deposits cannot move value there.
 */
export function createChainFaucet(config: ChainConfig): SandboxFaucet {
  switch (chainFamily(config.chain)) {
    case "evm":
      return createEvmFaucet(config);
    case "bitcoin":
      // The local sandbox node mines on a timer: no extra blocks per send.
      return createBitcoinFaucet(config, { mineBlocks: 0 });
    case "solana":
      return createSolanaFaucet(config);
    case "tron":
      return createTronFaucet(config);
  }
}
