import type { Ed25519KeyScheme } from "@mp/custody";
import { PublicKey } from "@solana/web3.js";

/**
 * Solana keys: ed25519 under m/44'/501' (SLIP-0010, hardened to the end); the address is the
 * base58 of the raw 32-byte public key, matched as is.
 */
export const solanaKeyScheme: Ed25519KeyScheme = {
  family: "solana",
  curve: "ed25519",
  coinPath: () => "m/44'/501'",
  address: (publicKey) => new PublicKey(publicKey).toBase58(),
  addressKey: (address) => address,
  // web3.js refuses a base58 string that is not of 32 bytes.
  isAddress: (address) => {
    try {
      new PublicKey(address);
      return true;
    } catch {
      return false;
    }
  },
};
