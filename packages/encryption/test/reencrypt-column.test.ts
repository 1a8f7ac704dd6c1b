import { randomBytes, randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEncryptionKeyring, keyIdsInColumn, reencryptColumn } from "../src/index.ts";

const column = { table: "sealed_things", idColumn: "id", ciphertextColumn: "secret", keyIdColumn: "secret_key_id" };

describe("reencryptColumn", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase({ migrate: false });
    await t.db.query(
      "CREATE TABLE sealed_things (id uuid PRIMARY KEY, secret bytea NOT NULL, secret_key_id text NOT NULL)",
    );
  });
  afterAll(() => t.drop());

  it("re-seals every value under the current key, in batches, losing none, and is a no-op when repeated", async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = createEncryptionKeyring({ current: oldKey });
    const values = new Map<string, string>();
    for (let i = 0; i < 7; i++) {
      const id = randomUUID();
      values.set(id, `value-${i}`);
      const sealed = before.seal(`value-${i}`, id);
      await t.db.query("INSERT INTO sealed_things VALUES ($1, $2, $3)", [id, sealed.ciphertext, sealed.keyId]);
    }
    expect(await keyIdsInColumn(t.db, column)).toEqual([before.currentKeyId]);

    const during = createEncryptionKeyring({ current: newKey, old: [oldKey] });
    expect(await reencryptColumn(t.db, during, column, { batchSize: 3 })).toBe(7);
    expect(await keyIdsInColumn(t.db, column)).toEqual([during.currentKeyId]);
    expect(await reencryptColumn(t.db, during, column)).toBe(0);

    const after = createEncryptionKeyring({ current: newKey });
    const rows = await t.db.query<{ id: string; secret: Buffer; secret_key_id: string }>("SELECT * FROM sealed_things");
    expect(rows.rows).toHaveLength(7);
    for (const row of rows.rows) {
      expect(after.open({ keyId: row.secret_key_id, ciphertext: row.secret }, row.id).toString()).toBe(
        values.get(row.id),
      );
    }
  });

  it("stops without changing anything it cannot open (a key missing from the ring)", async () => {
    const stranger = createEncryptionKeyring({ current: randomBytes(32) });
    const id = randomUUID();
    const sealed = stranger.seal("orphan", id);
    await t.db.query("INSERT INTO sealed_things VALUES ($1, $2, $3)", [id, sealed.ciphertext, sealed.keyId]);
    const ring = createEncryptionKeyring({ current: randomBytes(32) });
    await expect(reencryptColumn(t.db, ring, column)).rejects.toThrow(/no encryption key with id/);
    const row = await t.db.query<{ secret_key_id: string }>("SELECT secret_key_id FROM sealed_things WHERE id = $1", [
      id,
    ]);
    expect(row.rows[0]?.secret_key_id).toBe(sealed.keyId);
  });

  it("refuses identifiers that are not plain SQL names", async () => {
    await expect(
      reencryptColumn(t.db, createEncryptionKeyring({ current: randomBytes(32) }), { ...column, table: "x; DROP" }),
    ).rejects.toThrow(/invalid SQL identifier/);
  });
});
