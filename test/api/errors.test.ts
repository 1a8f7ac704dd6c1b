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
