import type { ChainFamily } from "@mp/core";
import type { BitcoinNetwork } from "./bitcoin-network.ts";

/** A secp256k1 public key in both SEC1 forms: some encodings hash the compressed one, some the uncompressed. */
export interface Secp256k1PublicKey {
  /** SEC1 compressed, 33 bytes. */
  readonly publicKey: Uint8Array;
  /** SEC1 uncompressed, 65 bytes. */
  readonly point: Uint8Array;
}

/** What every key scheme says, whatever its curve. */
interface KeySchemeBase {
  readonly family: ChainFamily;
  /**
   * The purpose and coin-type levels the family's accounts hang under (e.g. `m/44'/60'`): a
   * receive address is `<coin>/a'/0/i` on secp256k1 and `<coin>/a'/i'` on ed25519 (derivation-paths.ts).
   * `network` is the deployment's Bitcoin network; a family whose coin type does not depend on it ignores it.
   */
  coinPath(network: BitcoinNetwork): string;
  /** The matching form of an address (normalizeAddress of @mp/core): lowercased where case is a checksum. */
  addressKey(address: string): string;
  /** Whether a transfer can be sent to `address` (what an operator or a merchant types), on `network`. */
  isAddress(address: string, network: BitcoinNetwork): boolean;
}

/**
 * A family on secp256k1: BIP-32, so the roles without the mnemonic derive its receive addresses from
 * the account's extended public key (public-custody.ts).
 */
export interface Secp256k1KeyScheme extends KeySchemeBase {
  readonly curve: "secp256k1";
  /** The address of a public key, as the chain's wallets show it. */
  address(key: Secp256k1PublicKey, network: BitcoinNetwork): string;
}

/**
 * A family on ed25519: SLIP-0010, hardened at every level, so its receive addresses need the private
 * account node and the signer derives them ahead into a pool (custody-pools.ts).
 */
export interface Ed25519KeyScheme extends KeySchemeBase {
  readonly curve: "ed25519";
  /** The address of a raw 32-byte public key, as the chain's wallets show it. */
  address(publicKey: Uint8Array): string;
}

/**
 * How a chain family's keys and addresses are made: the curve, the derivation path of its receive,
 * deposit and treasury keys (from `coinPath`), the encoding of a public key as an address and the
 * check of a typed one. Each family implements it in chains/<family> (its record's `keyScheme`) and
 * the service hands the registry's list to custody, which itself names no family.
 */
export type KeyScheme = Secp256k1KeyScheme | Ed25519KeyScheme;
