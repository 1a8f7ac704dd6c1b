import type { ChainConfig } from "./chains-config.ts";

/** What tells a chain's public networks apart (chain ids, genesis hashes), per `network` setting. */
export interface KnownNetworks<T> {
  mainnet: readonly T[];
  testnet: readonly T[];
}

/**
 * A public network known by its genesis: a Solana cluster by its genesis hash (`getGenesisHash`), a
 * Tron network by the id of its block 0.
 */
export interface GenesisNetwork {
  name: string;
  genesis: string;
}

/**
 * The identities a node may show for a chain configured on `network` (adapters' verifyNetwork);
 * null for `regtest`: a local chain (anvil, a test validator, the test nodes) has a genesis of its
 * own, so any is accepted.
 */
export function expectedNetworks<T>(network: ChainConfig["network"], known: KnownNetworks<T>): readonly T[] | null {
  return network === "regtest" ? null : known[network];
}
