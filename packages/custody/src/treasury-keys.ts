import { AppError, type ChainFamily } from "@mp/core";
import type { BitcoinNetwork } from "./bitcoin-network.ts";
import { assertChildNumber } from "./derivation-paths.ts";
import type { KeyScheme } from "./key-scheme.ts";
import { indexKeySchemes } from "./key-schemes.ts";
import { openSigningRoots, type SigningKey, signingKey } from "./signing-keys.ts";

/**
 * The treasury's signing keys, from TREASURY_MNEMONIC: a seed of its own, so no path of a merchant
 * account (MASTER_MNEMONIC) can ever reach a treasury key, whatever account number it is given.
 * Within that seed the paths are the standard account-0 paths every wallet uses, so an operator can
 * import the treasury mnemonic into an ordinary wallet in an emergency: `<coin>/0'/b/i` on secp256k1
 * (BIP-44/84: branch 0 receive, 1 change) and `<coin>/0'/i'` on ed25519 (SLIP-0010, hardened to the
 * end), `<coin>` being the family's key scheme's `coinPath` (treasuryPath). Today:
 *
 * | family  | send path                          | |
 * |---------|------------------------------------|-|
 * | evm     | m/44'/60'/0'/0/0                    | one address for the seven EVM chains |
 * | tron    | m/44'/195'/0'/0/0                   | |
 * | bitcoin | m/84'/c'/0'/0/0, change m/84'/c'/0'/1/n | c = 0 on mainnet, 1 elsewhere |
 * | solana  | m/44'/501'/0'/0'                    | |
 *
 * Only the signer role builds this object (DESIGN.md "Treasury and sending").
 */
/** One treasury key (see SigningKey). */
export type TreasuryKey = SigningKey;

export interface TreasuryKeys {
  /** Hex of the treasury seed's BIP-32 root fingerprint (tells two treasury mnemonics apart). */
  readonly fingerprint: string;
  /**
   * The treasury key of `family` (each chains/<family> asks for its own): by default the send key
   * (branch 0, index 0). A family that spends change (Bitcoin) asks for branch 1, `index`; on
   * ed25519 there is no change branch and asking for one is refused.
   */
  key(family: ChainFamily, branch?: 0 | 1, index?: number): TreasuryKey;
}

/**
 * The treasury path of `scheme`'s family: `<coin>/0'/branch/index` on secp256k1,
 * `<coin>/0'/index'` on ed25519 (branch 0 only). For listing without keys (`payments treasury
 * addresses`) and for createTreasuryKeys.
 */
export function treasuryPath(scheme: KeyScheme, network: BitcoinNetwork, branch: 0 | 1 = 0, index = 0): string {
  assertChildNumber("index", index);
  const account = `${scheme.coinPath(network)}/0'`;
  if (scheme.curve === "secp256k1") return `${account}/${branch}/${index}`;
  if (branch !== 0) {
    throw new AppError("internal_error", `the ${scheme.family} treasury has no change branch (ed25519)`);
  }
  return `${account}/${index}'`;
}

export interface CreateTreasuryKeysOptions {
  bitcoinNetwork: BitcoinNetwork;
  /** Every family's key scheme (the registry's, services/payments/src/chain-families.ts): paths and address encodings. */
  schemes: readonly KeyScheme[];
}

export function createTreasuryKeys(mnemonic: string, options: CreateTreasuryKeysOptions): TreasuryKeys {
  const network = options.bitcoinNetwork;
  const schemes = indexKeySchemes(options.schemes);
  const roots = openSigningRoots("TREASURY_MNEMONIC", mnemonic);
  // The send keys are asked for on every send; an ed25519 derivation costs a millisecond or two, so
  // each family's is derived once. Change keys (a growing index) are not kept.
  const sendKeys = new Map<ChainFamily, TreasuryKey>();
  const derive = (family: ChainFamily, branch: 0 | 1, index: number): TreasuryKey => {
    const scheme = schemes.of(family);
    return signingKey(scheme, network, treasuryPath(scheme, network, branch, index), roots);
  };

  return Object.freeze({
    fingerprint: roots.fingerprint,
    key: (family: ChainFamily, branch: 0 | 1 = 0, index = 0): TreasuryKey => {
      if (branch !== 0 || index !== 0) return derive(family, branch, index);
      let send = sendKeys.get(family);
      if (!send) {
        send = derive(family, 0, 0);
        sendKeys.set(family, send);
      }
      return { ...send };
    },
  });
}
