import { ConfigError } from "@mp/core";
import type { Queryable } from "@mp/db";

const FINGERPRINT = /^[0-9a-f]{8}$/;

/**
 * Records the root key's fingerprint on the first start of a database and refuses every later start
 * whose mnemonic has another one: addresses already handed out derive from the recorded mnemonic,
 * and deriving new ones from a different mnemonic would mix two wallets in one ledger.
 * Safe under concurrent first starts: the single-row insert is idempotent.
 */
export async function ensureRootFingerprint(db: Queryable, fingerprint: string): Promise<void> {
  if (!FINGERPRINT.test(fingerprint)) {
    throw new ConfigError("MASTER_MNEMONIC", "root fingerprint must be 8 lowercase hex digits");
  }
  await db.query("INSERT INTO deployment (root_fingerprint) VALUES ($1) ON CONFLICT (id) DO NOTHING", [fingerprint]);
  const { rows } = await db.query<{ root_fingerprint: string }>("SELECT root_fingerprint FROM deployment");
  const recorded = rows[0]?.root_fingerprint;
  if (recorded !== fingerprint) {
    throw new ConfigError(
      "MASTER_MNEMONIC",
      `does not match this database: its addresses were derived from the mnemonic with root fingerprint ${recorded ?? "(none)"}, the configured one has ${fingerprint}; configure the original mnemonic or use a new database`,
    );
  }
}
