import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { HDKey as Ed25519HDKey } from "micro-ed25519-hdkey";
import * as secp256k1 from "tiny-secp256k1";
import type { BitcoinNetwork } from "./bitcoin-network.ts";
import type { Ed25519KeyScheme, Secp256k1KeyScheme } from "./key-scheme.ts";
import { assertValidMnemonic, normalizeMnemonic } from "./mnemonic.ts";

/** A private key the signer role holds (a treasury or a deposit key), with its path and address. */
export interface SigningKey {
  path: string;
  /** As the chain shows it (EIP-55, base58, bech32). */
  address: string;
  /** secp256k1: 32-byte private key; ed25519: the 32-byte seed (web3.js Keypair.fromSeed). */
  privateKey: Uint8Array;
  /** secp256k1: 33-byte compressed point; ed25519: the 32-byte public key. */
  publicKey: Uint8Array;
}

/** The private roots of a mnemonic, for signing keys: BIP-32 (secp256k1) and SLIP-0010 (ed25519). */
export interface SigningRoots {
  secp256k1: HDKey;
  ed25519: Ed25519HDKey;
  /** Hex of the seed's BIP-32 root fingerprint (tells two mnemonics apart). */
  fingerprint: string;
}

/**
 * Checks the mnemonic (a bad one is a ConfigError of `setting`, naming no word of it) and opens its
 * seed's roots; the seed itself is wiped once they exist.
 */
export function openSigningRoots(setting: string, mnemonic: string): SigningRoots {
  const normalized = normalizeMnemonic(mnemonic);
  assertValidMnemonic(setting, normalized);
  const seed = mnemonicToSeedSync(normalized);
  const roots = { secp256k1: HDKey.fromMasterSeed(seed), ed25519: Ed25519HDKey.fromMasterSeed(seed) };
  seed.fill(0);
  return { ...roots, fingerprint: roots.secp256k1.fingerprint.toString(16).padStart(8, "0") };
}

/** The key of the secp256k1 node at `path`, with its address in `scheme`'s encoding. */
export function secp256k1Key(
  scheme: Secp256k1KeyScheme,
  network: BitcoinNetwork,
  path: string,
  node: HDKey,
): SigningKey {
  const { privateKey, publicKey } = node;
  if (!privateKey || !publicKey) throw new Error(`no key at ${path}`);
  // @scure/bip32 keeps the compressed point; some encodings hash the uncompressed one.
  const address = scheme.address({ publicKey, point: secp256k1.pointCompress(publicKey, false) }, network);
  return { path, address, privateKey, publicKey };
}

/** The key of the ed25519 node at `path`, with its address in `scheme`'s encoding. */
export function ed25519Key(scheme: Ed25519KeyScheme, path: string, node: Ed25519HDKey): SigningKey {
  return {
    path,
    address: scheme.address(node.publicKeyRaw),
    privateKey: node.privateKey,
    publicKey: node.publicKeyRaw,
  };
}

/** The key at `path` on the scheme's curve, from the mnemonic's roots. */
export function signingKey(
  scheme: Secp256k1KeyScheme | Ed25519KeyScheme,
  network: BitcoinNetwork,
  path: string,
  roots: SigningRoots,
): SigningKey {
  return scheme.curve === "ed25519"
    ? ed25519Key(scheme, path, roots.ed25519.derive(path))
    : secp256k1Key(scheme, network, path, roots.secp256k1.derive(path));
}
