import {
  CHAIN_IDS,
  type ChainAdapter,
  type ChainAsset,
  type ChainConfig,
  type ChainsConfig,
  type SandboxFaucet,
} from "@mp/core";
import type { ReconcileTarget } from "@mp/treasury";
import { familyOf } from "./chain-families.ts";

/** The adapter of a configured chain, built by its family (chain-families.ts). */
export function createChainAdapter(config: ChainConfig): ChainAdapter {
  return familyOf(config.chain).createAdapter(config);
}

/**
 * A faucet for a local sandbox chain. Only chains that carry a faucet key (EVM) or run on a local
 * test node get one; a production deployment has none, so POST /v1/sandbox/deposits cannot move value there.
 */
export function createChainFaucet(config: ChainConfig): SandboxFaucet {
  return familyOf(config.chain).createFaucet(config);
}

/**
 * The assets of a configured chain as its family resolves them (native coin first, then tokens; a
 * Solana or Tron mainnet config without tokens gets the family's default stablecoins): what the
 * treasury can send there.
 */
export function chainAssets(config: ChainConfig): ChainAsset[] {
  return familyOf(config.chain).assets(config);
}

/**
 * Each configured chain with its assets and its family's holdings reader, in CHAIN_IDS order: what
 * `payments reconcile chains` and the dashboard's reconciliation read from the nodes.
 */
export function reconcileTargets(chains: ChainsConfig): ReconcileTarget[] {
  return CHAIN_IDS.flatMap((chain) => {
    const config = chains[chain];
    if (!config) return [];
    const assets = chainAssets(config);
    return [{ config, assets, reader: familyOf(chain).createHoldingsReader(config, assets) }];
  });
}
