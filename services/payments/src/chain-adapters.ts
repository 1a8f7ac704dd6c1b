import { BTC_ASSET, createBitcoinAdapter, createBitcoinFaucet } from "@mp/chain-bitcoin";
import { createEvmAdapter, createEvmFaucet, resolveEvmAssets } from "@mp/chain-evm";
import { createSolanaAdapter, createSolanaFaucet, SOLANA_DEFAULT_TOKENS } from "@mp/chain-solana";
import { createTronAdapter, createTronFaucet, resolveTronAssets } from "@mp/chain-tron";
import {
  CHAIN_IDS,
  type ChainAdapter,
  type ChainAsset,
  type ChainConfig,
  type ChainsConfig,
  chainFamily,
  NATIVE_ASSETS,
  type SandboxFaucet,
} from "@mp/core";
import type { ReconcileTarget } from "@mp/treasury";

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

/**
 * The assets of a configured chain as its family resolves them (native coin first, then tokens; a
 * Solana or Tron mainnet config without tokens gets the family's default stablecoins): what the
 * treasury can send there.
 */
export function chainAssets(config: ChainConfig): ChainAsset[] {
  switch (chainFamily(config.chain)) {
    case "evm":
      return resolveEvmAssets(config).list();
    case "bitcoin":
      return [{ asset: BTC_ASSET, address: null, decimals: NATIVE_ASSETS.BITCOIN.decimals }];
    case "solana": {
      const tokens = config.tokens.length > 0 ? config.tokens : SOLANA_DEFAULT_TOKENS[config.network];
      return [{ ...NATIVE_ASSETS.SOLANA, address: null }, ...tokens.map((token) => ({ ...token }))];
    }
    case "tron":
      return resolveTronAssets(config).list();
  }
}

/**
 * Each configured chain with its assets, in CHAIN_IDS order: what `payments reconcile chains` and
 * the dashboard's reconciliation read from the nodes.
 */
export function reconcileTargets(chains: ChainsConfig): ReconcileTarget[] {
  return CHAIN_IDS.flatMap((chain) => {
    const chainConfig = chains[chain];
    return chainConfig ? [{ config: chainConfig, assets: chainAssets(chainConfig) }] : [];
  });
}
