import type { ChainFamily } from "@mp/core";
import { type BitcoinNetwork, bitcoinCoinType } from "./bitcoin-network.ts";
import { assertChildNumber } from "./derivation-paths.ts";
import type { KeyScheme } from "./key-scheme.ts";
import { indexKeySchemes } from "./key-schemes.ts";
import { openSigningRoots, type SigningKey, signingKey } from "./signing-keys.ts";

/**
 * The treasury's signing keys, from TREASURY_MNEMONIC: a seed of its own, so no path of a merchant
 * account (MASTER_MNEMONIC) can ever reach a treasury key, whatever account number it is given.
 * Within that seed the paths are the standard account-0 paths every wallet uses, so an operator can
 * import the treasury mnemonic into an ordinary wallet in an emergency:
 *
 * | family  | path                               | |
 * |---------|------------------------------------|-|
 * | evm     | m/44'/60'/0'/0/0                    | one address for the seven EVM chains |
 * | tron    | m/44'/195'/0'/0/0                   | |
 * | bitcoin | m/84'/c'/0'/0/0, change m/84'/c'/0'/1/n | c = 0 on mainnet, 1 elsewhere |
 * | solana  | m/44'/501'/0'/0'                    | SLIP-0010, hardened to the end |
 *
 * Only the signer role builds this object (DESIGN.md "Treasury and sending").
 */
/** One treasury key (see SigningKey). */
export type TreasuryKey = SigningKey;

export interface TreasuryKeys {
  /** Hex of the treasury seed's BIP-32 root fingerprint (tells two treasury mnemonics apart). */
  readonly fingerprint: string;
  evm(): TreasuryKey;
  tron(): TreasuryKey;
  /** branch 0: the receive (send-from) address at index 0; branch 1: change address `index`. */
  bitcoin(branch: 0 | 1, index: number): TreasuryKey;
  solana(): TreasuryKey;
}

/** The fixed paths, for listing without keys (`payments treasury addresses`) and the docs. */
export const TREASURY_PATHS = {
  evm: "m/44'/60'/0'/0/0",
  tron: "m/44'/195'/0'/0/0",
  bitcoin: (network: BitcoinNetwork, branch: 0 | 1, index: number) =>
    `m/84'/${bitcoinCoinType(network)}'/0'/${branch}/${index}`,
  solana: "m/44'/501'/0'/0'",
} as const;

export interface CreateTreasuryKeysOptions {
  bitcoinNetwork: BitcoinNetwork;
  /** Every family's key scheme (the registry's, services/payments/src/chain-families.ts): the address encodings. */
  schemes: readonly KeyScheme[];
}

export function createTreasuryKeys(mnemonic: string, options: CreateTreasuryKeysOptions): TreasuryKeys {
  const network = options.bitcoinNetwork;
  const schemes = indexKeySchemes(options.schemes);
  const roots = openSigningRoots("TREASURY_MNEMONIC", mnemonic);
  const key = (family: ChainFamily, path: string) => signingKey(schemes.of(family), network, path, roots);
  // An ed25519 derivation costs a millisecond or two: the one fixed key is derived once.
  const solana = key("solana", TREASURY_PATHS.solana);

  return Object.freeze({
    fingerprint: roots.fingerprint,
    evm: () => key("evm", TREASURY_PATHS.evm),
    tron: () => key("tron", TREASURY_PATHS.tron),
    bitcoin: (branch: 0 | 1, index: number) => {
      assertChildNumber("index", index);
      return key("bitcoin", TREASURY_PATHS.bitcoin(network, branch, index));
    },
    solana: () => ({ ...solana }),
  });
}

/** Which families have one fixed send address (Bitcoin also has change addresses). */
export const TREASURY_FAMILIES: readonly ChainFamily[] = ["evm", "tron", "bitcoin", "solana"];
