import type { Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import type { EncryptionKeyring } from "./keyring.ts";

/**
 * Where one kind of sealed value lives: a table whose rows hold the ciphertext and its key id, and
 * whose id column is the associated data the value was sealed with.
 */
export interface EncryptedColumn {
  table: string;
  idColumn: string;
  ciphertextColumn: string;
  keyIdColumn: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function checked(column: EncryptedColumn): EncryptedColumn {
  for (const name of Object.values(column)) {
    // Identifiers are constants of the code, never input; this only guards against a typo becoming SQL.
    if (!IDENTIFIER.test(name)) throw new Error(`invalid SQL identifier ${name}`);
  }
  return column;
}

/** The distinct key ids the column's values are sealed under (rows without a sealed value have none). */
export async function keyIdsInColumn(sql: Queryable, column: EncryptedColumn): Promise<string[]> {
  const c = checked(column);
  const result = await sql.query<{ key_id: string }>(
    `SELECT DISTINCT ${c.keyIdColumn} AS key_id FROM ${c.table} WHERE ${c.keyIdColumn} IS NOT NULL`,
  );
  return result.rows.map((row) => row.key_id);
}

/**
 * Re-seals every value of the column that is not under the keyring's current key, in batches of
 * one transaction each (rows locked while they change, so a concurrent writer never loses an
 * update and a crash leaves every row either old-and-valid or new-and-valid). Returns how many
 * values were re-sealed. Running it again finds nothing left to do.
 */
export async function reencryptColumn(
  db: Database,
  keyring: EncryptionKeyring,
  column: EncryptedColumn,
  options: { batchSize?: number; logger?: Logger } = {},
): Promise<number> {
  const c = checked(column);
  const batchSize = options.batchSize ?? 200;
  let total = 0;
  for (;;) {
    const done = await db.tx(async (client) => {
      const rows = await client.query<{ id: string; ciphertext: Buffer; key_id: string }>(
        `SELECT ${c.idColumn}::text AS id, ${c.ciphertextColumn} AS ciphertext, ${c.keyIdColumn} AS key_id
         FROM ${c.table} WHERE ${c.keyIdColumn} <> $1 ORDER BY ${c.idColumn} LIMIT $2 FOR UPDATE`,
        [keyring.currentKeyId, batchSize],
      );
      for (const row of rows.rows) {
        const sealed = keyring.reseal({ keyId: row.key_id, ciphertext: row.ciphertext }, row.id);
        await client.query(
          `UPDATE ${c.table} SET ${c.ciphertextColumn} = $2, ${c.keyIdColumn} = $3 WHERE ${c.idColumn} = $1 AND ${c.keyIdColumn} = $4`,
          [row.id, sealed.ciphertext, sealed.keyId, row.key_id],
        );
      }
      return rows.rows.length;
    });
    total += done;
    if (done > 0) options.logger?.info({ table: c.table, reencrypted: total }, "re-encryption progress");
    if (done < batchSize) return total;
  }
}
