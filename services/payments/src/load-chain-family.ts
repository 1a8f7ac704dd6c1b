import { type ChainFamily, type ChainId, chainFamily } from "@mp/core";
import type { ChainFamilyModule } from "@mp/treasury";

/**
 * Each family's record (the one CHAIN_FAMILIES lists, chain-families.ts), imported on demand: a
 * one-shot command about one chain (`payments treasury send`) loads that family's package only, not
 * the four families' clients (viem, @solana/web3.js, tronweb, bitcoinjs-lib) the serving roles need.
 * Keyed by every ChainFamily, so a new family does not compile until it is listed here too.
 */
const LOADERS: Readonly<Record<ChainFamily, () => Promise<ChainFamilyModule>>> = {
  evm: async () => (await import("@mp/chain-evm")).evmFamily,
  bitcoin: async () => (await import("@mp/chain-bitcoin")).bitcoinFamily,
  solana: async () => (await import("@mp/chain-solana")).solanaFamily,
  tron: async () => (await import("@mp/chain-tron")).tronFamily,
};

/** The family record of a chain, its package loaded first. */
export function loadChainFamily(chain: ChainId): Promise<ChainFamilyModule> {
  return LOADERS[chainFamily(chain)]();
}
