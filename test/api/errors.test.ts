import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { startApiHarness, useApiHarness } from "../support/api-harness.ts";

describe("error forms and request validation", () => {
  const { api, merchant } = useApiHarness();

  const post = (body: string, key = `k-${Math.random()}`) =>
    api.call(merchant.apiKey, "/v1/customers", {
      method: "POST",
      idempotencyKey: key,
      headers: { "content-type": "application/json" },
      body,
    });

  it("answers malformed JSON with 400 validation_error in the envelope form", async () => {
    const res = await post('{"type": "INDIVIDUAL",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      data: {},
      error: "validation_error",
      message: expect.stringContaining("JSON"),
      status: "error",
    });
  });

  it("names the field for wrong types, unknown enum values and unknown fields", async () => {
    const cases: Array<[unknown, string]> = [
      [{ type: 5 }, "type"],
      [{ type: "ROBOT", first_name: "a", last_name: "b" }, "type"],
      [{ type: "INDIVIDUAL", first_name: "a", last_name: 7 }, "last_name"],
      [{ type: "INDIVIDUAL", first_name: "a", last_name: "b", email: "nope" }, "email"],
      [{ type: "INDIVIDUAL", first_name: "a", last_name: "b", colour: "red" }, "colour"],
      [[1, 2], "body"],
    ];
    for (const [body, field] of cases) {
      const res = await post(JSON.stringify(body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("validation_error");
      expect(res.body.message).toContain(field);
    }
    const count = await api.db.query("SELECT count(*)::int AS n FROM customers");
    expect(count.rows[0]?.n).toBe(0);
  });

  it("answers a body over the size limit with 413", async () => {
    const res = await post(JSON.stringify({ type: "INDIVIDUAL", first_name: "x".repeat(200_000), last_name: "y" }));
    expect(res.status).toBe(413);
    expect(res.body.error).toBe("payload_too_large");
  });

  it("answers an unknown route with 404 in the envelope form", async () => {
    for (const path of ["/v1/nothing", "/v2/customers", "/"]) {
      const res = await api.call(merchant.apiKey, path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ data: {}, error: "not_found", status: "error" });
    }
  });

  it("answers a malformed path id with 400 and an unknown one with 404", async () => {
    const bad = await api.call(merchant.apiKey, "/v1/customers/not-a-uuid");
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("customer_id");
    const missing = await api.call(merchant.apiKey, "/v1/customers/6f1c1c1e-1111-4111-8111-111111111111");
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("not_found");
  });

  it("answers a malformed percent-encoding in a path parameter with 400 naming it, in the route's error form", async () => {
    const customer = "6f1c1c1e-1111-4111-8111-111111111111";
    const cases: Array<[string, string, string]> = [
      ["GET", "/v1/customers/%ED%A0%80", "customer_id"],
      ["GET", "/v1/customers/%E0%A4%A/verification-submissions", "customer_id"],
      ["POST", "/v1/customers/%ED%A0%80/verification-submissions", "customer_id"],
      ["GET", `/v1/customers/${customer}/verification-submissions/%ED%A0%80`, "submission_id"],
      ["GET", "/v1/wallets/%ED%A0%80", "id"],
      ["GET", "/v1/deposits/%", "id"],
      ["GET", "/v1/virtual-accounts/%ED%A0%80", "virtual_account_id"],
      ["GET", "/v1/virtual-accounts/%ff/deposits", "virtual_account_id"],
    ];
    for (const [method, path, name] of cases) {
      const res = await api.call(merchant.apiKey, path, {
        method,
        ...(method === "POST" ? { idempotencyKey: `pct-${name}`, json: { tier: "TIER_1" } } : {}),
      });
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual({
        data: {},
        error: "validation_error",
        message: `${name}: malformed percent-encoding`,
        status: "error",
      });
    }
    const address = await api.call(merchant.apiKey, "/v1/addresses/%ED%A0%80");
    expect(address.status).toBe(400);
    expect(address.body).toEqual({
      error: { code: "validation_error", message: "id: malformed percent-encoding" },
    });
  });

  it("keeps the 4xx status of the body parser's errors, and reads no body where a route takes none", async () => {
    const send = (headers: Record<string, string>, body: string | Uint8Array) =>
      api.call(merchant.apiKey, "/v1/customers", {
        method: "POST",
        idempotencyKey: `parser-${Math.random()}`,
        headers,
        body,
      });
    const json = JSON.stringify({ type: "INDIVIDUAL", first_name: "a", last_name: "b" });
    const charset = await send({ "content-type": "application/json; charset=iso-8859-1" }, json);
    expect(charset.status).toBe(415);
    expect(charset.body).toMatchObject({ data: {}, error: "unsupported_media_type", status: "error" });
    const encoding = await send({ "content-type": "application/json", "content-encoding": "compress" }, json);
    expect(encoding.status).toBe(415);
    expect(encoding.body).toMatchObject({
      error: "unsupported_media_type",
      message: expect.stringContaining("Encoding"),
    });
    const corrupt = await send({ "content-type": "application/json", "content-encoding": "gzip" }, "not gzip");
    expect(corrupt.status).toBe(400);
    expect(corrupt.body).toMatchObject({ data: {}, error: "validation_error", status: "error" });
    const count = await api.db.query("SELECT count(*)::int AS n FROM customers WHERE merchant_id = $1", [
      merchant.merchantId,
    ]);
    expect(count.rows[0]?.n).toBe(0);
    // fetch sends no body with a GET: node's client does.
    const health = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${api.url}/health`, {
        method: "GET",
        headers: { "content-type": "application/json", "content-length": "3" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on("error", reject);
      req.end("{{{");
    });
    expect(health).toBe(200);
  });

  it("never puts a stack trace in a body, and tags every answer with a request id", async () => {
    const res = await post("{{{");
    expect(res.text).not.toMatch(/at .*\.ts:\d+|node_modules|Error:/);
    expect(res.headers.get("x-request-id")).toMatch(/^[\w-]+$/);
    const echoed = await api.call(undefined, "/health", { headers: { "X-Request-Id": "trace-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-123");
  });

  it("answers 500 without internals when an unexpected error happens, and stores no idempotent answer", async () => {
    const broken = await startApiHarness({
      overrides: {
        jobs: {
          send: async () => {
            throw new Error("queue exploded at /secret/path.ts:12");
          },
          work: async () => {},
          stop: async () => {},
        },
      },
    });
    try {
      const m = await broken.merchant();
      const body = { type: "INDIVIDUAL", first_name: "A", last_name: "B" };
      const res = await broken.call(m.apiKey, "/v1/customers", { method: "POST", idempotencyKey: "boom", json: body });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        data: {},
        error: "internal_error",
        message: "Internal server error",
        status: "error",
      });
      expect(res.text).not.toContain("secret");
      const stored = await broken.db.query("SELECT count(*)::int AS n FROM idempotency_keys");
      expect(stored.rows[0]?.n).toBe(0);
      const customers = await broken.db.query("SELECT count(*)::int AS n FROM customers");
      expect(customers.rows[0]?.n).toBe(0);
    } finally {
      await broken.stop();
    }
  });
});
