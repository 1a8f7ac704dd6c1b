import { ConfigError, type Logger } from "@mp/core";
import type { Database } from "@mp/db";
import {
  type EncryptedColumn,
  type EncryptionKeyring,
  keyIdsInColumn,
  OLD_KEYS_SETTING,
  reencryptColumn,
} from "@mp/encryption";
import { WEBHOOK_SECRET_COLUMN } from "@mp/webhooks";

/**
 * Every value the service encrypts at rest. Each is sealed with its row id as associated data
 * (migrations 0030, 0031, 0076, 0120, 0210, 0220, 0260, 0270 and 0300); a new encrypted column must be listed here to take part in rotation.
 */
export const ENCRYPTED_COLUMNS: readonly EncryptedColumn[] = [
  {
    table: "verification_submissions",
    idColumn: "id",
    ciphertextColumn: "payload_ciphertext",
    keyIdColumn: "payload_key_id",
  },
  {
    table: "virtual_accounts",
    idColumn: "id",
    ciphertextColumn: "instructions_ciphertext",
    keyIdColumn: "instructions_key_id",
  },
  WEBHOOK_SECRET_COLUMN,
  {
    table: "transfer_quotes",
    idColumn: "id",
    ciphertextColumn: "destination_bank_ciphertext",
    keyIdColumn: "destination_bank_key_id",
  },
  // Travel rule data (migration 0210), sealed with the quote id as the bank details are.
  {
    table: "transfer_quotes",
    idColumn: "id",
    ciphertextColumn: "beneficiary_ciphertext",
    keyIdColumn: "beneficiary_key_id",
  },
  // A liquidation address's bank destination (migration 0220) and beneficiary (0260), sealed with its id.
  {
    table: "liquidation_addresses",
    idColumn: "id",
    ciphertextColumn: "destination_bank_ciphertext",
    keyIdColumn: "destination_bank_key_id",
  },
  {
    table: "liquidation_addresses",
    idColumn: "id",
    ciphertextColumn: "beneficiary_ciphertext",
    keyIdColumn: "beneficiary_key_id",
  },
  // The payer's account a bank statement line names (migration 0270), sealed with the line's id.
  {
    table: "bank_statement_lines",
    idColumn: "id",
    ciphertextColumn: "payer_ciphertext",
    keyIdColumn: "payer_key_id",
  },
  // The account an operator gave a bank return (migration 0300), sealed with the return's id.
  {
    table: "bank_returns",
    idColumn: "id",
    ciphertextColumn: "destination_ciphertext",
    keyIdColumn: "destination_key_id",
  },
];

/**
 * Fails (ConfigError, one line) when stored values are sealed under a key the keyring lacks: the
 * service could not open them, and a rotation must not start. Safe to call at every start.
 */
export async function checkEncryptionKeys(db: Database, keyring: EncryptionKeyring): Promise<void> {
  const missing = new Set<string>();
  for (const column of ENCRYPTED_COLUMNS) {
    for (const keyId of await keyIdsInColumn(db, column)) if (!keyring.has(keyId)) missing.add(keyId);
  }
  if (missing.size > 0) {
    throw new ConfigError(
      OLD_KEYS_SETTING,
      `stored data is encrypted under key id(s) ${[...missing].sort().join(", ")}, which neither ENCRYPTION_KEY nor ${OLD_KEYS_SETTING} provides`,
    );
  }
}

/**
 * `pnpm payments keys rotate-encryption`: re-encrypts every stored KYC payload and every virtual
 * account's deposit instructions under the current ENCRYPTION_KEY.
 *
 * Operator procedure (no downtime, nothing lost at any step):
 * 1. Generate a key: `openssl rand -base64 32`.
 * 2. Set it as ENCRYPTION_KEY (or ENCRYPTION_KEY_FILE) and put the previous key in
 *    ENCRYPTION_KEYS_OLD (comma-separated base64; or ENCRYPTION_KEYS_OLD_FILE, one key per line) on
 *    every process, then restart them: new values are sealed under the new key, old ones still open.
 *    (A sandbox that ran without ENCRYPTION_KEY used DATA_DIR/encryption-key: that is the old key.)
 * 3. Run `pnpm payments keys rotate-encryption` with the same settings. It first checks that every
 *    stored key id is available (else it stops, changing nothing), then re-seals in small
 *    transactions; it can be interrupted and run again. It prints how many values it re-encrypted.
 * 4. When a run reports 0, remove ENCRYPTION_KEYS_OLD and restart; destroy the old key.
 */
export async function rotateEncryption(
  db: Database,
  keyring: EncryptionKeyring,
  logger: Logger,
): Promise<{ reencrypted: number }> {
  await checkEncryptionKeys(db, keyring);
  let reencrypted = 0;
  for (const column of ENCRYPTED_COLUMNS) {
    const count = await reencryptColumn(db, keyring, column, { logger });
    logger.info({ table: column.table, reencrypted: count, keyId: keyring.currentKeyId }, "table re-encrypted");
    reencrypted += count;
  }
  return { reencrypted };
}
