import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import type { Secp256k1KeyScheme } from "@mp/custody";
import { address as bitcoinAddress, crypto as bitcoinCrypto } from "bitcoinjs-lib";

/**
 * Bitcoin keys: secp256k1 under m/84'/c' (BIP-84 native SegWit; c = 0 on mainnet, 1 on testnet and
 * regtest); the address is P2WPKH (witness v0, HASH160 of the compressed key) in the network's bech32
 * (bc1q…, tb1q…, bcrt1q…), matched as is.
 */
export const bitcoinKeyScheme: Secp256k1KeyScheme = {
  family: "bitcoin",
  curve: "secp256k1",
  coinPath: (network) => `m/84'/${bitcoinNetwork(network).coinType}'`,
  address: ({ publicKey }, network) =>
    bitcoinAddress.toBech32(bitcoinCrypto.hash160(publicKey), 0, bitcoinNetwork(network).encoding.bech32),
  addressKey: (address) => address,
  // Any standard output type bitcoinjs can script, on `network`.
  isAddress: (address, network) => {
    try {
      bitcoinAddress.toOutputScript(address, bitcoinNetwork(network).encoding);
      return true;
    } catch {
      return false;
    }
  },
};
