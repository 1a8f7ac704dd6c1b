import { randomBytes } from "node:crypto";
import { ConfigError, silentLogger } from "@mp/core";
import { createEncryptionKeyring, keyIdOf } from "@mp/encryption";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkEncryptionKeys, rotateEncryption } from "../../services/payments/src/cli/rotate-encryption.ts";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { createCustomer, decided, individualTier1, nextKey, submit, tier2Customer } from "./verification-fixtures.ts";

describe("keys rotate-encryption", () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  let api: ApiHarness;
  let m: TestMerchant;
  beforeAll(async () => {
    api = await startApiHarness({
      workers: true,
      overrides: { encryption: createEncryptionKeyring({ current: oldKey }) },
    });
    m = await api.merchant();
  });
  afterAll(() => api.stop());

  const keyIds = async () => {
    const result = await api.db.query<{ key_id: string }>(
      `SELECT payload_key_id AS key_id FROM verification_submissions
       UNION ALL SELECT instructions_key_id FROM virtual_accounts`,
    );
    return result.rows.map((r) => r.key_id);
  };

  it("re-encrypts every submission and account under the new key without losing any", async () => {
    // Data sealed under the old key: attempts in several states, and an ACTIVE virtual account.
    const customerId = await tier2Customer(api, m, { lastName: "Franklin" });
    const other = await createCustomer(api, m);
    const review = await submit(api, m, other, individualTier1({ last_name: "Review", first_name: "Rosalind" }));
    await decided(api, m, other, review.body.data.id);
    const open = await api.call(m.apiKey, "/v1/virtual-accounts", {
      method: "POST",
      idempotencyKey: nextKey("va"),
      json: { customer_id: customerId, currency: "USD" },
    });
    const accountId = open.body.data.id;
    const before = await eventually(async () => {
      const res = await api.call(m.apiKey, `/v1/virtual-accounts/${accountId}`);
      return res.body.data.status === "ACTIVE" ? res.body.data.deposit_instructions : undefined;
    });
    const ids = await keyIds();
    expect(ids).toHaveLength(4);
    expect(new Set(ids)).toEqual(new Set([keyIdOf(oldKey)]));

    // Step 2 of the procedure: the new key is current, the old one kept for opening.
    const rotating = createEncryptionKeyring({ current: newKey, old: [oldKey] });
    api.deps.encryption = rotating;
    expect(await rotateEncryption(api.db, rotating, silentLogger())).toEqual({ reencrypted: 4 });
    expect(new Set(await keyIds())).toEqual(new Set([keyIdOf(newKey)]));
    expect(await rotateEncryption(api.db, rotating, silentLogger())).toEqual({ reencrypted: 0 });

    // Step 4: the old key is gone; everything still opens, payloads unchanged.
    const onlyNew = createEncryptionKeyring({ current: newKey });
    api.deps.encryption = onlyNew;
    await checkEncryptionKeys(api.db, onlyNew);
    const after = await api.call(m.apiKey, `/v1/virtual-accounts/${accountId}`);
    expect(after.body.data.deposit_instructions).toEqual(before);
    const rows = await api.db.query<{ id: string; ct: Buffer; key_id: string }>(
      "SELECT id, payload_ciphertext AS ct, payload_key_id AS key_id FROM verification_submissions",
    );
    const names = rows.rows.map((r) => {
      const payload = onlyNew.openJson({ keyId: r.key_id, ciphertext: r.ct }, r.id) as { first_name: string };
      return payload.first_name;
    });
    expect(names.sort()).toEqual(["Augusta", "Augusta", "Rosalind"]);

    // New work keeps flowing under the new key (a corrected attempt is sealed and reviewed).
    const corrected = await submit(api, m, other, individualTier1());
    expect((await decided(api, m, other, corrected.body.data.id)).status).toBe("APPROVED");
  });

  it("refuses to rotate, changing nothing, when a stored key id is not configured", async () => {
    const stranger = createEncryptionKeyring({ current: randomBytes(32) });
    const before = await keyIds();
    try {
      await rotateEncryption(api.db, stranger, silentLogger());
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/^ENCRYPTION_KEYS_OLD: .*key id/);
      expect((error as Error).message).toContain(keyIdOf(newKey));
    }
    expect(await keyIds()).toEqual(before);
  });
});
