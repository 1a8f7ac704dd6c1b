import type { AppConfig, ChainsConfig } from "@mp/core";
import type { BitcoinNetwork } from "@mp/custody";

/**
 * The Bitcoin network addresses are encoded for: the configured one, regtest for the local sandbox
 * (a sandbox without CHAINS_CONFIG), mainnet otherwise. Serving and the operator commands must agree,
 * or `custody verify` would report every Bitcoin address as a mismatch.
 */
export function bitcoinNetworkOf(config: AppConfig, chains: ChainsConfig | undefined): BitcoinNetwork {
  const configured = (chains ?? config.chains)?.BITCOIN?.network;
  if (configured) return configured;
  return config.environment === "sandbox" && !config.chains ? "regtest" : "mainnet";
}
