import { lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness, useApiHarness } from "../support/api-harness.ts";
import { connectionTarget, startTcpProxy, type TcpProxy, viaProxy } from "../support/tcp-proxy.ts";

describe("health, readiness, chains, rates, OpenAPI", () => {
  const { api, merchant } = useApiHarness();

  it("GET /health answers without the database", async () => {
    const res = await api.call(undefined, "/health");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { status: "ok" }, error: "", status: "success" });
  });

  it("sends JSON with a byte-exact Content-Length, and HEAD answers headers only", async () => {
    const created = await api.call(merchant.apiKey, "/v1/customers", {
      method: "POST",
      idempotencyKey: "content-length",
      json: { type: "INDIVIDUAL", first_name: "Zoë", last_name: "Ångström 測試" },
    });
    const read = await api.call(merchant.apiKey, `/v1/customers/${created.body.data.id}`);
    expect(read.body.data.first_name).toBe("Zoë");
    expect(read.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(Number(read.headers.get("content-length"))).toBe(Buffer.byteLength(read.text));
    const head = await fetch(`${api.url}/v1/chains`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(0);
    expect(await head.text()).toBe("");
  });

  it("GET /v1/chains lists the ten chains with capabilities, publicly", async () => {
    const res = await api.call(undefined, "/v1/chains");
    expect(res.status).toBe(200);
    const chains = res.body.data.items;
    expect(chains.map((c: { chain: string }) => c.chain).join(" ")).toBe(
      "BASE ARBITRUM POLYGON CELO BSC ETHEREUM OPTIMISM SOLANA BITCOIN TRON",
    );
    for (const chain of chains) {
      expect(chain).toMatchObject({
        deposits_enabled: false,
        required_confirmations: expect.any(Number),
        assets: expect.any(Array),
      });
    }
    expect(chains.find((c: { chain: string }) => c.chain === "BITCOIN").assets[0]).toEqual({
      asset: "BTC",
      contract_address: null,
      decimals: 8,
    });
  });

  it("GET /v1/rates needs the key and gives every rate an expiry and a source; /api/rates is the deprecated public alias", async () => {
    const res = await api.call(merchant.apiKey, "/v1/rates");
    expect(res.status).toBe(200);
    const items = res.body.data.items;
    expect(items.length).toBeGreaterThan(3);
    for (const rate of items) {
      expect(rate).toEqual({
        from_currency: expect.any(String),
        to_currency: "USD",
        rate: expect.stringMatching(/^\d+(\.\d+)?$/),
        expires_at: expect.any(String),
        source: "sandbox",
      });
      expect(Date.parse(rate.expires_at)).toBeGreaterThan(Date.now());
    }
    const legacy = await api.call(undefined, "/api/rates");
    expect(legacy.status).toBe(200);
    expect(legacy.headers.get("deprecation")).toBe("true");
    expect(legacy.body.data.items.map((r: { from_currency: string }) => r.from_currency)).toEqual(
      items.map((r: { from_currency: string }) => r.from_currency),
    );
  });

  it("serves a lint-clean OpenAPI 3.1 document covering every route", async () => {
    const res = await api.call(undefined, "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const paths = Object.keys(res.body.paths);
    for (const path of [
      "/health",
      "/ready",
      "/v1/chains",
      "/v1/rates",
      "/api/rates",
      "/v1/customers",
      "/v1/customers/{customer_id}",
      "/v1/events",
      "/v1/events/{id}",
      "/metrics",
      "/openapi.json",
    ]) {
      expect(paths).toContain(path);
    }
    const { allRoutes } = await import("@mp/api");
    for (const route of allRoutes) expect(res.body.paths[route.path][route.method], route.path).toBeDefined();
    expect(res.body.paths["/v1/customers"].post.parameters.map((p: { name: string }) => p.name)).toContain(
      "X-Idempotency-Key",
    );
    const problems = await lintFromString({
      source: res.text,
      absoluteRef: "openapi.json",
      config: await recommendedConfig(),
    });
    const errors = problems.filter((p) => p.severity === "error");
    expect(errors.map((p) => `${p.ruleId}: ${p.message} @ ${p.location[0]?.pointer}`)).toEqual([]);
    const warnings = problems.filter((p) => p.severity === "warn");
    expect(warnings.map((p) => `${p.ruleId}: ${p.message} @ ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it("answers 429 in the envelope form past the per-key limit, per key", async () => {
    const limited = await startApiHarness({ overrides: { rateLimitPerMinute: 3 } });
    try {
      const m1 = await limited.merchant();
      const m2 = await limited.merchant();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.call(m1.apiKey, "/v1/customers")).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const blocked = await limited.call(m1.apiKey, "/v1/customers");
      expect(blocked.body).toMatchObject({ data: {}, error: "rate_limited", status: "error" });
      expect(blocked.headers.get("ratelimit-policy")).toBe('"per-key";q=3;w=60');
      expect(blocked.headers.get("ratelimit")).toMatch(/^"per-key";r=0;t=\d+$/);
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await limited.call(m2.apiKey, "/v1/customers")).status).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

async function recommendedConfig() {
  const { createConfig } = await import("@redocly/openapi-core");
  return createConfig({
    extends: ["recommended"],
    rules: {
      "info-license-url": "off",
      // Health, readiness, chains, metrics and the document itself take no input: no 4xx exists for them.
      "operation-4xx-response": "off",
    },
  });
}

describe("readiness follows the database", () => {
  let proxy: TcpProxy;
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiHarness({
      wrapConnection: async (connectionString) => {
        proxy = await startTcpProxy(connectionTarget(connectionString));
        return viaProxy(connectionString, proxy.port);
      },
    });
  });
  afterAll(async () => {
    await api.stop();
    await proxy.close();
  });

  it("turns 503 when the database is unreachable and 200 again when it returns, without a restart", async () => {
    expect((await api.call(undefined, "/ready")).status).toBe(200);
    const merchant = await api.merchant();
    await proxy.down();
    const down = await api.call(undefined, "/ready");
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ data: { status: "not_ready" }, error: "service_unavailable", status: "error" });
    const health = await api.call(undefined, "/health");
    expect(health.status).toBe(200);
    const read = await api.call(merchant.apiKey, "/v1/customers");
    expect(read.status).toBe(503);
    expect(read.body).toMatchObject({ data: {}, error: "service_unavailable", status: "error" });
    await proxy.up();
    const up = await api.call(undefined, "/ready");
    expect(up.status).toBe(200);
    expect((await api.call(merchant.apiKey, "/v1/customers")).status).toBe(200);
  });
});
