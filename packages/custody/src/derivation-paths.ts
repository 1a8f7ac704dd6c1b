import { ValidationError } from "@mp/core";
import type { BitcoinNetwork } from "./bitcoin-network.ts";
import type { KeyScheme } from "./key-scheme.ts";

/**
 * The BIP-32 paths of the receive addresses (DESIGN.md "Address derivation"). `a` is the merchant's
 * derivation account, `i` the wallet index. Both are BIP-32 child numbers below 2^31: the account is
 * used hardened, the index plain (secp256k1) or hardened (ed25519). Which purpose and coin type a
 * family uses is its key scheme's `coinPath` (chains/<family>).
 */
export const MAX_CHILD_NUMBER = 0x7fff_ffff;

export function assertChildNumber(name: "account" | "index", value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > MAX_CHILD_NUMBER) {
    throw new ValidationError(`${name} must be an integer from 0 to ${MAX_CHILD_NUMBER}`, name);
  }
}

/**
 * The path of the account's node whose children are its receive addresses: the external chain
 * `<coin>/a'/0` on secp256k1 (BIP-44/84), the account `<coin>/a'` itself on ed25519 (SLIP-0010 has
 * hardened children only, so there is no external-chain level).
 */
export function receiveParentPath(scheme: KeyScheme, network: BitcoinNetwork, account: number): string {
  const accountPath = `${scheme.coinPath(network)}/${account}'`;
  return scheme.curve === "ed25519" ? accountPath : `${accountPath}/0`;
}

/** Receive address `index` of `account`: `<coin>/a'/0/i` on secp256k1, `<coin>/a'/i'` on ed25519 (hardened to the end). */
export function receivePath(scheme: KeyScheme, network: BitcoinNetwork, account: number, index: number): string {
  return `${receiveParentPath(scheme, network, account)}/${index}${scheme.curve === "ed25519" ? "'" : ""}`;
}

const SECP256K1_RECEIVE_PATH = /^m\/\d+'\/\d+'\/(\d+)'\/0\/(\d+)$/;
const ED25519_RECEIVE_PATH = /^m\/\d+'\/\d+'\/(\d+)'\/(\d+)'$/;

/**
 * Reads the account and index back out of a stored receive path, or null when the path does not
 * have the shape of one on `curve`. Whether the purpose and coin type are the right ones for the chain is
 * checked by re-deriving the path and comparing it as a whole.
 */
export function parseReceivePath(curve: KeyScheme["curve"], path: string): { account: number; index: number } | null {
  const match = (curve === "ed25519" ? ED25519_RECEIVE_PATH : SECP256K1_RECEIVE_PATH).exec(path);
  if (!match) return null;
  const account = Number(match[1]);
  const index = Number(match[2]);
  if (account > MAX_CHILD_NUMBER || index > MAX_CHILD_NUMBER) return null;
  return { account, index };
}
