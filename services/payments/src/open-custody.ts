import type { AppConfig, ChainsConfig, Logger } from "@mp/core";
import { type Custody, createCustody, ensureRootFingerprint, resolveMnemonic } from "@mp/custody";
import type { Queryable } from "@mp/db";
import { bitcoinNetworkOf } from "./bitcoin-network.ts";
import { KEY_SCHEMES } from "./chain-families.ts";

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
