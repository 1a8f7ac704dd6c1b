import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness, type TestMerchant } from "../support/api-harness.ts";

/** A production deployment (PAYMENTS_ENV=production) never serves the sandbox routes, whoever asks. */
describe("/v1/sandbox/* in a production deployment", () => {
  let api: ApiHarness;
  let sandboxKey: TestMerchant;
  let liveKey: TestMerchant;
  beforeAll(async () => {
    api = await startApiHarness({ overrides: { environment: "production" } });
    sandboxKey = await api.merchant("sandbox");
    liveKey = await api.merchant("production");
  });
  afterAll(() => api.stop());

  it("answers 403 in the envelope form whatever the key and the body, and records nothing", async () => {
    const keys = [undefined, "sk_live_not-a-real-key", sandboxKey.apiKey, liveKey.apiKey];
    const requests: Array<{ path: string; init: Parameters<ApiHarness["call"]>[2] }> = [
      {
        path: "/v1/sandbox/deposits",
        init: {
          method: "POST",
          json: { address: "0x0000000000000000000000000000000000000001", asset: "USDC", amount: "1" },
        },
      },
      {
        path: "/v1/sandbox/bank-deposits",
        init: { method: "POST", json: { virtual_account_id: crypto.randomUUID(), amount: "100.00" } },
      },
      {
        path: "/v1/sandbox/deposits",
        init: { method: "POST", body: "{not json", headers: { "content-type": "application/json" } },
      },
      { path: "/v1/sandbox/deposits", init: { method: "POST", json: {} } },
      { path: "/V1/SANDBOX/deposits", init: { method: "POST", json: {} } },
      { path: "/v1/sandbox/no-such-route", init: { method: "GET" } },
    ];
    for (const key of keys) {
      for (const { path, init } of requests) {
        const res = await api.call(key, path, { ...init, idempotencyKey: crypto.randomUUID() });
        expect(res.status, `${key} ${path}: ${res.text}`).toBe(403);
        expect(res.body).toEqual({
          data: {},
          error: "forbidden",
          message: "Sandbox routes are not available in a production deployment",
          status: "error",
        });
      }
    }
    const recorded = await api.db.query<{ n: string }>("SELECT count(*) AS n FROM idempotency_keys");
    expect(Number(recorded.rows[0]?.n)).toBe(0);
  });

  it("serves the other routes as usual", async () => {
    expect((await api.call(liveKey.apiKey, "/v1/customers")).status).toBe(200);
    expect((await api.call(undefined, "/v1/customers")).status).toBe(401);
  });
});

describe("/v1/sandbox/* in a sandbox deployment", () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiHarness();
  });
  afterAll(() => api.stop());

  it("still authenticates first: no key is 401, a production key is 403", async () => {
    const body = {
      method: "POST",
      idempotencyKey: crypto.randomUUID(),
      json: { virtual_account_id: crypto.randomUUID(), amount: "1.00" },
    };
    expect((await api.call(undefined, "/v1/sandbox/bank-deposits", body)).status).toBe(401);
    const live = await api.merchant("production");
    expect((await api.call(live.apiKey, "/v1/sandbox/bank-deposits", body)).status).toBe(403);
  });
});
