import type { ChainFamily } from "@mp/core";
import { address as bitcoinAddress, crypto as bitcoinCrypto, networks } from "bitcoinjs-lib";
import bs58 from "bs58";
import bs58check from "bs58check";
import { bytesToHex, checksumAddress, isAddress, keccak256 } from "viem";
import type { BitcoinNetwork } from "./derivation-paths.ts";

/** keccak256 of the 64-byte X||Y of an uncompressed key, last 20 bytes: the EVM/Tron account id. */
function keccakAccountId(uncompressedPoint: Uint8Array): Uint8Array {
  return keccak256(uncompressedPoint.subarray(1), "bytes").subarray(12);
}

/** EIP-55 mixed-case checksummed hex. */
export function evmAddress(uncompressedPoint: Uint8Array): string {
  return checksumAddress(bytesToHex(keccakAccountId(uncompressedPoint)));
}

const TRON_ADDRESS_PREFIX = 0x41;

/** Base58Check of 0x41 || account id: always starts with "T". */
export function tronAddress(uncompressedPoint: Uint8Array): string {
  const payload = new Uint8Array(21);
  payload[0] = TRON_ADDRESS_PREFIX;
  payload.set(keccakAccountId(uncompressedPoint), 1);
  return bs58check.encode(payload);
}

const BITCOIN_NETWORKS = { mainnet: networks.bitcoin, testnet: networks.testnet, regtest: networks.regtest } as const;

export function bitcoinjsNetwork(network: BitcoinNetwork) {
  return BITCOIN_NETWORKS[network];
}

/** P2WPKH (witness v0, HASH160 of the compressed key) in bech32: bc1q…, tb1q…, bcrt1q…. */
export function bitcoinP2wpkhAddress(compressedPublicKey: Uint8Array, network: BitcoinNetwork): string {
  return bitcoinAddress.toBech32(bitcoinCrypto.hash160(compressedPublicKey), 0, BITCOIN_NETWORKS[network].bech32);
}

/** A Solana address is the base58 of the raw 32-byte ed25519 public key. */
export function solanaAddress(ed25519PublicKey: Uint8Array): string {
  return bs58.encode(ed25519PublicKey);
}

/**
 * Whether `address` is one a transfer on `family` can be sent to, in the form the chain shows it:
 * EVM hex (EIP-55 checked when mixed case), Tron base58check of 0x41 || id, Bitcoin for `network`
 * (any standard output type bitcoinjs can script), Solana base58 of 32 bytes. The inverse of the
 * encoders above, for what an operator types (`payments treasury send --to`).
 */
export function isChainAddress(family: ChainFamily, address: string, network: BitcoinNetwork): boolean {
  try {
    switch (family) {
      case "evm":
        return isAddress(address, { strict: true });
      case "tron": {
        const bytes = bs58check.decode(address);
        return bytes.length === 21 && bytes[0] === TRON_ADDRESS_PREFIX;
      }
      case "bitcoin":
        bitcoinAddress.toOutputScript(address, BITCOIN_NETWORKS[network]);
        return true;
      case "solana":
        return bs58.decode(address).length === 32;
    }
  } catch {
    return false;
  }
}
