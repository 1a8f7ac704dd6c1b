import { keccak256 } from "viem";

/**
 * keccak256 of the 64-byte X||Y of an uncompressed secp256k1 key, last 20 bytes: the account id of
 * Ethereum and of the chains that took its accounts (the EVM and Tron key schemes encode it).
 */
export function keccakAccountId(uncompressedPoint: Uint8Array): Uint8Array {
  return keccak256(uncompressedPoint.subarray(1), "bytes").subarray(12);
}
