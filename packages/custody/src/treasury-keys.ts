import type { ChainFamily } from "@mp/core";
import { assertChildNumber, type BitcoinNetwork, bitcoinCoinType, COIN_TYPE } from "./derivation-paths.ts";
import { ed25519Key, openSigningRoots, type SigningKey, secp256k1Key } from "./signing-keys.ts";

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
  evm: `m/44'/${COIN_TYPE.evm}'/0'/0/0`,
  tron: `m/44'/${COIN_TYPE.tron}'/0'/0/0`,
  bitcoin: (network: BitcoinNetwork, branch: 0 | 1, index: number) =>
    `m/84'/${bitcoinCoinType(network)}'/0'/${branch}/${index}`,
  solana: `m/44'/${COIN_TYPE.solana}'/0'/0'`,
} as const;

export function createTreasuryKeys(mnemonic: string, options: { bitcoinNetwork: BitcoinNetwork }): TreasuryKeys {
  const network = options.bitcoinNetwork;
  const roots = openSigningRoots("TREASURY_MNEMONIC", mnemonic);
  const solanaNode = roots.ed25519.derive(TREASURY_PATHS.solana);
  const secp = (family: "evm" | "tron" | "bitcoin", path: string) =>
    secp256k1Key(family, network, path, roots.secp256k1.derive(path));

  return Object.freeze({
    fingerprint: roots.fingerprint,
    evm: () => secp("evm", TREASURY_PATHS.evm),
    tron: () => secp("tron", TREASURY_PATHS.tron),
    bitcoin: (branch: 0 | 1, index: number) => {
      assertChildNumber("index", index);
      return secp("bitcoin", TREASURY_PATHS.bitcoin(network, branch, index));
    },
    solana: () => ed25519Key(TREASURY_PATHS.solana, solanaNode),
  });
}

/** Which families have one fixed send address (Bitcoin also has change addresses). */
export const TREASURY_FAMILIES: readonly ChainFamily[] = ["evm", "tron", "bitcoin", "solana"];
