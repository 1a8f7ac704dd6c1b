import { type ChainFamily, LruCache, ValidationError } from "@mp/core";
import type { HDKey } from "@scure/bip32";
import type { HDKey as Ed25519HDKey } from "micro-ed25519-hdkey";
import {
  assertChildNumber,
  type BitcoinNetwork,
  bitcoinPath,
  COIN_TYPE,
  evmPath,
  parseReceivePath,
  solanaPath,
  tronPath,
} from "./derivation-paths.ts";
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

const HARDENED = 0x8000_0000;
/** Merchant accounts whose chain nodes stay cached (a few hundred bytes each). */
const MAX_CACHED_ACCOUNTS = 1_000;

export function createDepositKeys(mnemonic: string, options: { bitcoinNetwork: BitcoinNetwork }): DepositKeys {
  const network = options.bitcoinNetwork;
  const roots = openSigningRoots("MASTER_MNEMONIC", mnemonic);

  // The account's chain node (…/a'/0, Solana …/a') is derived once and cached: a sweep of many
  // addresses of one merchant then costs one child derivation per address, not five.
  const chainNodes = new LruCache<string, HDKey>(MAX_CACHED_ACCOUNTS);
  const solanaAccounts = new LruCache<number, Ed25519HDKey>(MAX_CACHED_ACCOUNTS);
  const secp = (family: "evm" | "tron" | "bitcoin", path: string): DepositKey => {
    const cut = path.lastIndexOf("/");
    const parent = chainNodes.getOrCreate(path.slice(0, cut), (chainPath) => roots.secp256k1.derive(chainPath));
    return secp256k1Key(family, network, path, parent.deriveChild(Number(path.slice(cut + 1))));
  };

  const key = (family: ChainFamily, account: number, index: number): DepositKey => {
    assertChildNumber("account", account);
    assertChildNumber("index", index);
    switch (family) {
      case "evm":
        return secp(family, evmPath(account, index));
      case "tron":
        return secp(family, tronPath(account, index));
      case "bitcoin":
        return secp(family, bitcoinPath(network, account, index));
      case "solana": {
        const node = solanaAccounts
          .getOrCreate(account, (a) => roots.ed25519.derive(`m/44'/${COIN_TYPE.solana}'/${a}'`))
          .deriveChild(index + HARDENED);
        return ed25519Key(solanaPath(account, index), node);
      }
    }
  };

  return Object.freeze({
    fingerprint: roots.fingerprint,
    key,
    forPath(family: ChainFamily, path: string): DepositKey {
      const parsed = parseReceivePath(family === "solana" ? "ed25519" : "secp256k1", path);
      const derived = parsed ? key(family, parsed.account, parsed.index) : null;
      // Re-derived and compared whole: a path of another purpose or coin type is not a receive path.
      if (!derived || derived.path !== path) throw new ValidationError(`${path} is no ${family} receive path`, "path");
      return derived;
    },
  });
}
