import { CHAIN_IDS, type ChainFamily, type ChainId, chainFamily } from "@mp/core";
import type { BitcoinNetwork } from "./bitcoin-network.ts";
import { receivePath } from "./derivation-paths.ts";
import type { Secp256k1KeyScheme } from "./key-scheme.ts";
import { derivePublicChild, type ExtendedPublicKey } from "./secp256k1-public-child.ts";

export interface DerivedAddress {
  /** As the chain's wallets show it: EIP-55 for EVM, base58 for Tron/Solana, bech32 for Bitcoin. */
  address: string;
  /** The matching form (normalizeAddress of @mp/core): EVM lowercased, other chains as is. */
  addressKey: string;
  path: string;
}

export interface WalletDestination extends DerivedAddress {
  chain: ChainId;
}

/** Receive address `index` under a secp256k1 account's external-chain public key (…/a'/0), with no private key. */
export function publicReceiveAddress(
  scheme: Secp256k1KeyScheme,
  external: ExtendedPublicKey,
  network: BitcoinNetwork,
  account: number,
  index: number,
): DerivedAddress {
  const address = scheme.address(derivePublicChild(external, index), network);
  return { address, addressKey: scheme.addressKey(address), path: receivePath(scheme, network, account, index) };
}

/** One wallet's ten destinations in CHAIN_IDS order, from one address per family. */
export function walletDestinations(byFamily: ReadonlyMap<ChainFamily, DerivedAddress>): WalletDestination[] {
  return CHAIN_IDS.map((chain) => {
    const derived = byFamily.get(chainFamily(chain));
    if (!derived) throw new Error(`no receive address derived for the family of ${chain}`);
    return { chain, ...derived };
  });
}
