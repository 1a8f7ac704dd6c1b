import { describe, expect, it } from "vitest";
import { useApiHarness } from "../support/api-harness.ts";

const TTL_MS = 5_000;
/** The clock the app's verified keys are measured on: moved by the tests, never by time passing. */
let clock = 0;

/**
 * A verified key is trusted without a lookup for at most its time bound (auth/verified-keys.ts). A
 * revocation made by another process (here: plain SQL on the database, as the CLI's `keys revoke`
 * does from its own process) is honoured once that bound has passed, on reads and writes alike.
 */
describe("API key cache: revocations by another process", () => {
  const { api } = useApiHarness({ overrides: { apiKeyCache: { ttlMs: TTL_MS, now: () => clock } } });

  const createCustomer = (key: string, idempotencyKey: string) =>
    api.call(key, "/v1/customers", {
      method: "POST",
      idempotencyKey,
      json: { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace" },
    });

  it("trusts a verified key until its bound, then refuses a key revoked meanwhile", async () => {
    const merchant = await api.merchant();
    clock = 1_000_000;
    expect((await api.call(merchant.apiKey, "/v1/customers")).status).toBe(200);
    await api.db.query("UPDATE api_keys SET revoked_at = now() WHERE prefix = $1", [merchant.keyPrefix]);
    // Within the bound the revocation is not seen yet: this is the documented window.
    clock += TTL_MS - 1;
    expect((await api.call(merchant.apiKey, "/v1/customers")).status).toBe(200);
    clock += 1;
    const read = await api.call(merchant.apiKey, "/v1/customers");
    expect(read.status).toBe(401);
    expect(read.body).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
    expect((await createCustomer(merchant.apiKey, "after-revocation")).status).toBe(401);
  });

  it("refuses a write with a key revoked meanwhile once the bound has passed", async () => {
    const merchant = await api.merchant();
    clock = 2_000_000;
    expect((await createCustomer(merchant.apiKey, "before")).status).toBe(202);
    await api.db.query("UPDATE api_keys SET revoked_at = now() WHERE prefix = $1", [merchant.keyPrefix]);
    clock += TTL_MS;
    expect((await createCustomer(merchant.apiKey, "after")).status).toBe(401);
    const { rows } = await api.db.query("SELECT count(*)::int AS n FROM customers WHERE merchant_id = $1", [
      merchant.merchantId,
    ]);
    expect(rows[0]?.n).toBe(1);
  });

  it("refuses the keys of a merchant disabled meanwhile once the bound has passed", async () => {
    const merchant = await api.merchant();
    clock = 3_000_000;
    expect((await api.call(merchant.apiKey, "/v1/customers")).status).toBe(200);
    await api.db.query("UPDATE merchants SET disabled_at = now() WHERE id = $1", [merchant.merchantId]);
    clock += TTL_MS;
    expect((await api.call(merchant.apiKey, "/v1/customers")).status).toBe(401);
  });

  it("looks a key up again after its bound, and keeps a key still valid working", async () => {
    const merchant = await api.merchant();
    clock = 4_000_000;
    for (let i = 0; i < 3; i++) {
      expect((await api.call(merchant.apiKey, "/v1/customers")).status).toBe(200);
      clock += TTL_MS;
    }
  });
});
