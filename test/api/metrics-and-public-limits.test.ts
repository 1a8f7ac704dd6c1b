import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness } from "../support/api-harness.ts";

const TOKEN = "metrics-token-0123456789abcdef";

describe("GET /metrics with METRICS_TOKEN", () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiHarness({ overrides: { metricsToken: TOKEN } });
  });
  afterAll(() => api.stop());

  it("answers 401 without the bearer token or with a wrong one, 200 with it", async () => {
    for (const authorization of [
      undefined,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      `Basic ${TOKEN}`,
      TOKEN,
      "Bearer ",
    ]) {
      const res = await api.call(undefined, "/metrics", authorization ? { headers: { authorization } } : {});
      expect(res.status, String(authorization)).toBe(401);
      expect(res.body).toEqual({ error: { code: "unauthorized", message: "Missing or invalid metrics token" } });
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="metrics"');
    }
    const ok = await api.call(undefined, "/metrics", { headers: { authorization: `bearer  ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain/);
  });
});

describe("GET /metrics without METRICS_TOKEN", () => {
  let sandbox: ApiHarness;
  let production: ApiHarness;
  beforeAll(async () => {
    sandbox = await startApiHarness();
    production = await startApiHarness({ overrides: { environment: "production" } });
  });
  afterAll(async () => {
    await sandbox?.stop();
    await production?.stop();
  });

  it("is open in a sandbox deployment and closed in a production one", async () => {
    expect((await sandbox.call(undefined, "/metrics")).status).toBe(200);
    const res = await production.call(undefined, "/metrics", { headers: { authorization: "Bearer anything-at-all" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: "unauthorized", message: "Missing or invalid metrics token" } });
  });
});

/** A GET from a given loopback address (127.0.0.0/8 is all local on Linux): another client. */
function getFrom(
  url: string,
  localAddress: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress }, (res) => {
      let text = "";
      res.on("data", (chunk) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("public routes are rate-limited per client address", () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApiHarness({ overrides: { rateLimitPerMinute: 3 } });
  });
  afterAll(() => api.stop());

  it("GET /v1/chains answers 429 in the envelope form past the limit, for that address only", async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await getFrom(`${api.url}/v1/chains`, "127.0.0.1")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const blocked = await getFrom(`${api.url}/v1/chains`, "127.0.0.1");
    expect(blocked.body).toEqual({
      data: {},
      error: "rate_limited",
      message: "Too many requests from this address; retry later",
      status: "error",
    });
    expect(blocked.headers["ratelimit-policy"]).toBe('"per-client";q=3;w=60');
    expect(blocked.headers.ratelimit).toMatch(/^"per-client";r=0;t=\d+$/);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    // Another client is not held back, and neither are the deprecated public rates nor keyed routes.
    expect((await getFrom(`${api.url}/v1/chains`, "127.0.0.2")).status).toBe(200);
    expect((await getFrom(`${api.url}/api/rates`, "127.0.0.1")).status).toBe(200);
    const merchant = await api.merchant();
    expect((await api.call(merchant.apiKey, "/v1/customers")).status).toBe(200);
  });

  it("GET /api/rates, the other public route that does work, is limited too; probes are not", async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await getFrom(`${api.url}/api/rates`, "127.0.0.3")).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    for (let i = 0; i < 5; i++) expect((await getFrom(`${api.url}/health`, "127.0.0.3")).status).toBe(200);
  });

  it("documents the 429 of the public routes and the 401 of /metrics in OpenAPI", async () => {
    const { body } = await api.call(undefined, "/openapi.json");
    const chains = body.paths["/v1/chains"].get;
    expect(chains.responses["429"]).toEqual({
      description: "Rate limit exceeded for this client address",
      content: {
        "application/json": { schema: expect.objectContaining({ required: ["data", "error", "message", "status"] }) },
      },
    });
    expect(body.paths["/api/rates"].get.responses["429"]).toBeDefined();
    expect(body.paths["/health"].get.responses["429"]).toBeUndefined();
    const metrics = body.paths["/metrics"].get;
    expect(metrics.responses["401"].description).toBe("Missing or invalid metrics token");
    expect(metrics.security).toEqual([{ MetricsToken: [] }]);
    expect(body.components.securitySchemes.MetricsToken).toMatchObject({ type: "http", scheme: "bearer" });
  });
});
