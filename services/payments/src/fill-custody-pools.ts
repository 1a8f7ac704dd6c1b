import type { AppConfig, Logger } from "@mp/core";
import type { Database } from "@mp/db";

/**
 * `payments merchants create` before the account it takes has stored public keys: no signer ran on
 * this database yet (a new sandbox, a deployment's first merchant). A host holding the mnemonic fills
 * the pools as the signer would; one without it (production, MASTER_MNEMONIC unset) leaves that to the
 * signer, and the merchant's wallet creation answers a retryable 503 until the signer has run.
 */
export async function fillCustodyPoolsIfNeeded(db: Database, config: AppConfig, logger: Logger): Promise<void> {
  const { rows } = await db.query(
    `SELECT 1 FROM custody_accounts
      WHERE account = (SELECT value FROM counters WHERE name = 'merchant_derivation_account')`,
  );
  if (rows.length > 0) return;
  if (config.mnemonic === undefined && config.environment === "production") {
    logger.warn("no stored keys for the next merchant account and no MASTER_MNEMONIC here: the signer derives them");
    return;
  }
  // Loaded only to fill: custody and every chain family's key scheme, for a first merchant only.
  const [{ fillCustodyPools }, { openCustody }, { bitcoinNetworkOf }] = await Promise.all([
    import("@mp/custody"),
    import("./open-custody.ts"),
    import("./bitcoin-network.ts"),
  ]);
  const custody = await openCustody(db, config, logger);
  await fillCustodyPools({ db, custody, bitcoinNetwork: bitcoinNetworkOf(config, undefined) });
}
