import { type ChainFamily, LruCache, ValidationError } from "@mp/core";
import type { HDKey } from "@scure/bip32";
import type { HDKey as Ed25519HDKey } from "micro-ed25519-hdkey";
import type { BitcoinNetwork } from "./bitcoin-network.ts";
import { assertChildNumber, parseReceivePath, receiveParentPath, receivePath } from "./derivation-paths.ts";
import type { KeyScheme } from "./key-scheme.ts";
import { indexKeySchemes } from "./key-schemes.ts";
import { ed25519Key, openSigningRoots, type SigningKey, secp256k1Key } from "./signing-keys.ts";

/** The private key of one receive (deposit) address (see SigningKey). */
export type DepositKey = SigningKey;

/**
 * The private keys of the deposit (receive) addresses, from MASTER_MNEMONIC, for sweeps. Only the
 * signer role builds this object (DESIGN.md "Treasury and sending"); the other roles derive the same
 * addresses from extended public keys and never hold one of these.
 */
export interface DepositKeys {
  /** Hex of the master seed's BIP-32 root fingerprint (the deployment's, see ensureRootFingerprint). */
  readonly fingerprint: string;
  /** The key of receive address `index` of merchant account `account` (the paths of derivation-paths.ts). */
  key(family: ChainFamily, account: number, index: number): DepositKey;
  /** The key of a stored receive path (destinations.derivation_path); refuses a path of another shape. */
  forPath(family: ChainFamily, path: string): DepositKey;
}

export interface CreateDepositKeysOptions {
  bitcoinNetwork: BitcoinNetwork;
  /** Every family's key scheme (the registry's, services/payments/src/chain-families.ts). */
  schemes: readonly KeyScheme[];
}

const HARDENED = 0x8000_0000;
/** Merchant accounts whose chain nodes stay cached (a few hundred bytes each). */
const MAX_CACHED_ACCOUNTS = 1_000;

export function createDepositKeys(mnemonic: string, options: CreateDepositKeysOptions): DepositKeys {
  const network = options.bitcoinNetwork;
  const schemes = indexKeySchemes(options.schemes);
  const roots = openSigningRoots("MASTER_MNEMONIC", mnemonic);

  // The account's receive parent (…/a'/0 on secp256k1, …/a' on ed25519) is derived once and cached:
  // a sweep of many addresses of one merchant then costs one child derivation per address, not five.
  const secp256k1Parents = new LruCache<string, HDKey>(MAX_CACHED_ACCOUNTS);
  const ed25519Parents = new LruCache<string, Ed25519HDKey>(MAX_CACHED_ACCOUNTS);

  const key = (family: ChainFamily, account: number, index: number): DepositKey => {
    assertChildNumber("account", account);
    assertChildNumber("index", index);
    const scheme = schemes.of(family);
    const parentPath = receiveParentPath(scheme, network, account);
    const path = receivePath(scheme, network, account, index);
    if (scheme.curve === "ed25519") {
      const parent = ed25519Parents.getOrCreate(parentPath, (p) => roots.ed25519.derive(p));
      return ed25519Key(scheme, path, parent.deriveChild(index + HARDENED));
    }
    const parent = secp256k1Parents.getOrCreate(parentPath, (p) => roots.secp256k1.derive(p));
    return secp256k1Key(scheme, network, path, parent.deriveChild(index));
  };

  return Object.freeze({
    fingerprint: roots.fingerprint,
    key,
    forPath(family: ChainFamily, path: string): DepositKey {
      const parsed = parseReceivePath(schemes.of(family).curve, path);
      const derived = parsed ? key(family, parsed.account, parsed.index) : null;
      // Re-derived and compared whole: a path of another purpose or coin type is not a receive path.
      if (!derived || derived.path !== path) throw new ValidationError(`${path} is no ${family} receive path`, "path");
      return derived;
    },
  });
}
