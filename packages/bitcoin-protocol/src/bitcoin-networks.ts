import { type Network, networks } from "bitcoinjs-lib";

export type BitcoinNetworkName = "mainnet" | "testnet" | "regtest";

/**
 * What changes between the networks the service supports, as data: the address encodings and the
 * `chain` name Bitcoin Core reports in getblockchaininfo (so a misconfigured node is refused).
 */
export interface BitcoinNetworkParams {
  name: BitcoinNetworkName;
  /** bitcoinjs-lib network: bech32 HRP, base58 version bytes. */
  encoding: Network;
  /** BIP-44 coin type of receive paths: 0' on mainnet, 1' on every test network. */
  coinType: number;
  /** Values of getblockchaininfo.chain that belong to this network. */
  coreChainNames: readonly string[];
}

export const BITCOIN_NETWORKS: Readonly<Record<BitcoinNetworkName, BitcoinNetworkParams>> = {
  mainnet: { name: "mainnet", encoding: networks.bitcoin, coinType: 0, coreChainNames: ["main"] },
  // testnet3, testnet4 and signet all use the tb1 / m,n,2 encodings.
  testnet: { name: "testnet", encoding: networks.testnet, coinType: 1, coreChainNames: ["test", "testnet4", "signet"] },
  regtest: { name: "regtest", encoding: networks.regtest, coinType: 1, coreChainNames: ["regtest"] },
};

export function bitcoinNetwork(name: BitcoinNetworkName): BitcoinNetworkParams {
  return BITCOIN_NETWORKS[name];
}
