import { request } from "node:http";
import { revokeApiKey, setMerchantDisabled } from "@mp/api";
import { describe, expect, it } from "vitest";
import { useApiHarness } from "../support/api-harness.ts";

/** A raw request whose header names go out exactly as written (fetch would normalise them). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET" }, (res) => {
      let body = "";
      res.on("data", (c) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.on("error", reject);
    req.end();
  });
}

describe("API key authentication", () => {
  const { api, merchant } = useApiHarness();

  it("accepts X-Service-API-Key in any case of the header name", async () => {
    for (const name of ["X-Service-API-Key", "x-service-api-key", "X-SERVICE-API-KEY"]) {
      const res = await rawGet(`${api.url}/v1/customers`, { [name]: merchant.apiKey });
      expect(res.status, name).toBe(200);
    }
  });

  it("accepts Authorization: ApiKey <key>", async () => {
    const res = await api.call(undefined, "/v1/customers", { headers: { Authorization: `ApiKey ${merchant.apiKey}` } });
    expect(res.status).toBe(200);
    const lower = await rawGet(`${api.url}/v1/customers`, { authorization: `apikey ${merchant.apiKey}` });
    expect(lower.status).toBe(200);
  });

  it("answers 401 in the nested form for a missing, unknown, malformed or wrongly-schemed key", async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { "X-Service-API-Key": `${merchant.apiKey.slice(0, -1)}x` },
      { "X-Service-API-Key": "not-a-key" },
      { Authorization: `Bearer ${merchant.apiKey}` },
      { Authorization: "ApiKey" },
    ];
    for (const headers of cases) {
      const res = await api.call(undefined, "/v1/customers", { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body).toEqual({ error: { code: "unauthorized", message: expect.any(String) } });
    }
  });

  it("rejects a revoked key with 401 while the merchant's other keys keep working", async () => {
    const other = await api.merchant();
    expect((await api.call(other.apiKey, "/v1/customers")).status).toBe(200);
    expect(await revokeApiKey(api.db, other.keyPrefix)).toBe(1);
    const res = await api.call(other.apiKey, "/v1/customers");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
    expect((await api.call(merchant.apiKey, "/v1/customers")).status).toBe(200);
  });

  it("answers a key revoked after it was seen with 401 where the read would have failed otherwise", async () => {
    // The process knows this key (its reads no longer wait for the lookup): the lookup still decides.
    const other = await api.merchant();
    const missing = "/v1/customers/00000000-0000-4000-8000-000000000000";
    expect((await api.call(other.apiKey, missing)).status).toBe(404);
    expect((await api.call(other.apiKey, "/v1/customers?limit=0")).status).toBe(400);
    expect(await revokeApiKey(api.db, other.keyPrefix)).toBe(1);
    for (const path of [missing, "/v1/customers?limit=0", "/v1/customers"]) {
      const res = await api.call(other.apiKey, path);
      expect(res.status, path).toBe(401);
      expect(res.body.error.code, path).toBe("unauthorized");
    }
  });

  it("answers 401 on the next read once the key's merchant is disabled by this process", async () => {
    const other = await api.merchant();
    expect((await api.call(other.apiKey, "/v1/customers")).status).toBe(200);
    expect(await setMerchantDisabled(api.db, other.merchantId, true)).toBe(true);
    expect((await api.call(other.apiKey, "/v1/customers")).status).toBe(401);
  });

  it("stores keys only as hashes, with a readable environment prefix", async () => {
    const rows = await api.db.query<{ prefix: string; key_hash: Buffer }>("SELECT prefix, key_hash FROM api_keys");
    expect(merchant.apiKey).toMatch(/^sk_sandbox_[A-Za-z0-9_-]{43}$/);
    const live = await api.merchant("production");
    expect(live.apiKey).toMatch(/^sk_live_/);
    const dump = JSON.stringify(rows.rows);
    expect(dump).not.toContain(merchant.apiKey);
    expect(dump).not.toContain(merchant.apiKey.slice(11));
    for (const row of rows.rows) expect(row.key_hash.length).toBe(32);
  });

  it("leaves public endpoints open", async () => {
    for (const path of ["/health", "/ready", "/v1/chains", "/api/rates", "/openapi.json"]) {
      expect((await api.call(undefined, path)).status, path).toBe(200);
    }
    expect((await api.call(undefined, "/v1/rates")).status).toBe(401);
  });
});
