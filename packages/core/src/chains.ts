import { z } from "zod";
import { CHAIN_IDS } from "./chain-ids.ts";

export const chainIdSchema = z.enum(CHAIN_IDS);
export type ChainId = z.infer<typeof chainIdSchema>;

export type ChainFamily = "evm" | "solana" | "bitcoin" | "tron";

export const EVM_CHAINS = ["BASE", "ARBITRUM", "POLYGON", "CELO", "BSC", "ETHEREUM", "OPTIMISM"] as const;
export type EvmChainId = (typeof EVM_CHAINS)[number];

export function chainFamily(chain: ChainId): ChainFamily {
  switch (chain) {
    case "SOLANA":
      return "solana";
    case "BITCOIN":
      return "bitcoin";
    case "TRON":
      return "tron";
    default:
      return "evm";
  }
}

export function isEvmChain(chain: ChainId): chain is EvmChainId {
  return chainFamily(chain) === "evm";
}

/**
 * The canonical form of an address for matching: EVM hex is case-insensitive, so it is lowercased;
 * every other encoding is case-significant (base58) or already lowercase (bech32) and kept as is.
 */
export function normalizeAddress(chain: ChainId, address: string): string {
  return isEvmChain(chain) ? address.toLowerCase() : address;
}

/**
 * The form `destinations` and `treasury_addresses` store (address_key) of an address as someone
 * wrote it: normalizeAddress, and a bech32 Bitcoin address lowercased (bech32 ignores case, and the
 * same address may be written in capitals, as in a QR code).
 */
export function storedAddressKey(chain: ChainId, address: string): string {
  const key = normalizeAddress(chain, address.trim());
  return chainFamily(chain) === "bitcoin" && /^(bc|tb|bcrt)1/i.test(key) ? key.toLowerCase() : key;
}
