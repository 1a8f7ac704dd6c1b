import { type ChainFamily, ConfigError, LruCache, ValidationError } from "@mp/core";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { HDKey as Ed25519HDKey } from "micro-ed25519-hdkey";
import * as secp256k1 from "tiny-secp256k1";
import { bitcoinP2wpkhAddress, evmAddress, solanaAddress, tronAddress } from "./address-encoding.ts";
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
import { mnemonicProblem, normalizeMnemonic } from "./mnemonic.ts";
import type { TreasuryKey } from "./treasury-keys.ts";

/** The private key of one receive (deposit) address: same shape as a treasury key. */
export type DepositKey = TreasuryKey;

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
  const normalized = normalizeMnemonic(mnemonic);
  const problem = mnemonicProblem(normalized);
  if (problem !== null) throw new ConfigError("MASTER_MNEMONIC", problem);
  const network = options.bitcoinNetwork;
  const seed = mnemonicToSeedSync(normalized);
  const root = HDKey.fromMasterSeed(seed);
  const ed25519Root = Ed25519HDKey.fromMasterSeed(seed);
  const fingerprint = root.fingerprint.toString(16).padStart(8, "0");
  seed.fill(0);

  // The account's chain node (…/a'/0, Solana …/a') is derived once and cached: a sweep of many
  // addresses of one merchant then costs one child derivation per address, not five.
  const chainNodes = new LruCache<string, HDKey>(MAX_CACHED_ACCOUNTS);
  const solanaAccounts = new LruCache<number, Ed25519HDKey>(MAX_CACHED_ACCOUNTS);
  const secp = (path: string, encode: (node: HDKey) => string): DepositKey => {
    const cut = path.lastIndexOf("/");
    const parent = chainNodes.getOrCreate(path.slice(0, cut), (chainPath) => root.derive(chainPath));
    const node = parent.deriveChild(Number(path.slice(cut + 1)));
    if (!node.privateKey || !node.publicKey) throw new Error(`no key at ${path}`);
    return { path, address: encode(node), privateKey: node.privateKey, publicKey: node.publicKey };
  };
  // @scure/bip32 keeps the compressed point; the EVM/Tron account id hashes the uncompressed one.
  const uncompressedPoint = (node: HDKey) => secp256k1.pointCompress(node.publicKey as Uint8Array, false);

  const key = (family: ChainFamily, account: number, index: number): DepositKey => {
    assertChildNumber("account", account);
    assertChildNumber("index", index);
    switch (family) {
      case "evm":
        return secp(evmPath(account, index), (node) => evmAddress(uncompressedPoint(node)));
      case "tron":
        return secp(tronPath(account, index), (node) => tronAddress(uncompressedPoint(node)));
      case "bitcoin":
        return secp(bitcoinPath(network, account, index), (node) =>
          bitcoinP2wpkhAddress(node.publicKey as Uint8Array, network),
        );
      case "solana": {
        const path = solanaPath(account, index);
        const node = solanaAccounts
          .getOrCreate(account, (a) => ed25519Root.derive(`m/44'/${COIN_TYPE.solana}'/${a}'`))
          .deriveChild(index + HARDENED);
        return {
          path,
          address: solanaAddress(node.publicKeyRaw),
          privateKey: node.privateKey,
          publicKey: node.publicKeyRaw,
        };
      }
    }
  };

  return Object.freeze({
    fingerprint,
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
