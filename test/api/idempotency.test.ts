import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness, type TestMerchant } from "../support/api-harness.ts";

describe("idempotent creates", () => {
  let api: ApiHarness;
  let merchant: TestMerchant;
  const body = { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" };
  beforeAll(async () => {
    api = await startApiHarness();
    merchant = await api.merchant();
  });
  afterAll(() => api.stop());

  const create = (key: string | undefined, json: unknown, as = merchant) =>
    api.call(as.apiKey, "/v1/customers", {
      method: "POST",
      ...(key === undefined ? {} : { idempotencyKey: key }),
      json,
    });

  it("requires X-Idempotency-Key (400, nested form) and creates nothing without it", async () => {
    const res = await create(undefined, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code: "validation_error", message: expect.stringContaining("X-Idempotency-Key") },
    });
    const count = await api.db.query("SELECT count(*)::int AS n FROM customers");
    expect(count.rows[0]?.n).toBe(0);
  });

  it("replays the first answer for the same key and body: same status, byte-identical body, same id", async () => {
    const first = await create("replay-1", body);
    expect(first.status).toBe(202);
    const second = await create("replay-1", { ...body });
    expect(second.status).toBe(first.status);
    expect(second.text).toBe(first.text);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    // Same fields in another order are the same body.
    const reordered = await create("replay-1", {
      email: body.email,
      last_name: body.last_name,
      first_name: body.first_name,
      type: body.type,
    });
    expect(reordered.body.data.id).toBe(first.body.data.id);
    const count = await api.db.query("SELECT count(*)::int AS n FROM customers WHERE first_name = 'Ada'");
    expect(count.rows[0]?.n).toBe(1);
  });

  it("answers 409 (nested form) for the same key with a different body, and changes nothing", async () => {
    await create("conflict-1", body);
    const res = await create("conflict-1", { ...body, first_name: "Grace" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: "idempotency_conflict", message: expect.any(String) } });
    const grace = await api.db.query("SELECT count(*)::int AS n FROM customers WHERE first_name = 'Grace'");
    expect(grace.rows[0]?.n).toBe(0);
  });

  it("scopes keys per merchant", async () => {
    const other = await api.merchant();
    const a = await create("shared-key", body);
    const b = await create("shared-key", body, other);
    expect(b.status).toBe(202);
    expect(b.body.data.id).not.toBe(a.body.data.id);
  });

  it("creates exactly one customer from 20 concurrent identical requests, all answered alike", async () => {
    const json = { ...body, external_reference: "concurrent-1" };
    const results = await Promise.all(Array.from({ length: 20 }, () => create("concurrent-key", json)));
    const ids = new Set(results.map((r) => r.body.data?.id));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(ids.size).toBe(1);
    const count = await api.db.query(
      "SELECT count(*)::int AS n FROM customers WHERE external_reference = 'concurrent-1'",
    );
    expect(count.rows[0]?.n).toBe(1);
  });

  it("records a 4xx answer and replays it, while rolling back the operation's writes", async () => {
    await create("dup-a", { ...body, external_reference: "dup" });
    const conflict = await create("dup-b", { ...body, external_reference: "dup" });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ data: {}, error: "conflict", status: "error" });
    const again = await create("dup-b", { ...body, external_reference: "dup" });
    expect(again.status).toBe(409);
    expect(again.text).toBe(conflict.text);
  });

  /** What the record kept before fingerprints were keyed: a plain SHA-256 of method, path and sorted body. */
  const plainHash = (json: Record<string, unknown>) => {
    const sorted = Object.fromEntries(Object.entries(json).sort(([a], [b]) => (a < b ? -1 : 1)));
    return createHash("sha256")
      .update(`POST /v1/customers\n${JSON.stringify(sorted)}`)
      .digest("hex");
  };
  const storedHash = async (key: string) =>
    (
      await api.db.query<{ request_hash: string }>(
        "SELECT request_hash FROM idempotency_keys WHERE merchant_id = $1 AND key = $2",
        [merchant.merchantId, key],
      )
    ).rows[0]?.request_hash;

  it("keeps an HMAC of the request under a key derived from the encryption key, never a plain hash", async () => {
    await create("fingerprint-1", body);
    const stored = await storedHash("fingerprint-1");
    expect(stored).toMatch(/^hmac1:[0-9a-f]{8}:[0-9a-f]{64}$/);
    expect(stored).not.toContain(plainHash(body));
    // Another deployment (another encryption key) keeps another fingerprint of the same request.
    const other = await startApiHarness();
    try {
      const m = await other.merchant();
      await other.call(m.apiKey, "/v1/customers", { method: "POST", idempotencyKey: "fingerprint-1", json: body });
      const theirs = await other.db.query<{ request_hash: string }>(
        "SELECT request_hash FROM idempotency_keys WHERE key = 'fingerprint-1'",
      );
      expect(theirs.rows[0]?.request_hash.slice(-64)).not.toBe(stored?.slice(-64));
    } finally {
      await other.stop();
    }
  });

  it("still replays a key recorded before fingerprints were keyed (plain SHA-256), and 409s another body", async () => {
    const first = await create("legacy-source", body);
    await api.db.query(
      `INSERT INTO idempotency_keys (merchant_id, key, request_hash, method, path, response_status, response_body)
       VALUES ($1, 'legacy-1', $2, 'POST', '/v1/customers', $3, $4)`,
      [merchant.merchantId, plainHash(body), first.status, first.text],
    );
    const replay = await create("legacy-1", { ...body });
    expect(replay.status).toBe(first.status);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const other = await create("legacy-1", { ...body, first_name: "Augusta" });
    expect(other.status).toBe(409);
    expect(await storedHash("legacy-1")).toBe(plainHash(body));
  });

  it("keeps keys for at least 24 hours", async () => {
    await create("old-key", body);
    await api.db.query("UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'old-key'");
    const { sweepIdempotencyKeys } = await import("@mp/api");
    await sweepIdempotencyKeys(api.db);
    const kept = await api.db.query("SELECT count(*)::int AS n FROM idempotency_keys WHERE key = 'old-key'");
    expect(kept.rows[0]?.n).toBe(1);
    await api.db.query("UPDATE idempotency_keys SET created_at = now() - interval '49 hours' WHERE key = 'old-key'");
    await sweepIdempotencyKeys(api.db);
    const gone = await api.db.query("SELECT count(*)::int AS n FROM idempotency_keys WHERE key = 'old-key'");
    expect(gone.rows[0]?.n).toBe(0);
  });
});
