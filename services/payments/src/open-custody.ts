import type { AppConfig, ChainsConfig, Logger } from "@mp/core";
import { type BitcoinNetwork, type Custody, createCustody, ensureRootFingerprint, resolveMnemonic } from "@mp/custody";
import type { Queryable } from "@mp/db";
import { KEY_SCHEMES } from "./chain-families.ts";

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

/**
 * The deployment's custody (signer role and operator commands only: the other roles read the public
 * material the signer stores, createPublicCustody): the mnemonic (never logged), the deriver, and the check that this
 * database belongs to this mnemonic (first start records the root fingerprint; a different one refuses).
 */
export async function openCustody(
  db: Queryable,
  config: AppConfig,
  logger: Logger,
  chains?: ChainsConfig,
): Promise<Custody> {
  const mnemonic = resolveMnemonic({
    source: config.mnemonic,
    environment: config.environment,
    dataDir: config.dataDir,
    logger,
  });
  const custody = createCustody(mnemonic, { bitcoinNetwork: bitcoinNetworkOf(config, chains), schemes: KEY_SCHEMES });
  await ensureRootFingerprint(db, custody.fingerprint);
  return custody;
}
