import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startApiHarness, useApiHarness } from "../support/api-harness.ts";

const create = (url: string, extra: Record<string, unknown> = {}) => ({
  url,
  enabled_events: ["deposit.confirmed"],
  ...extra,
});

describe("webhook endpoints API", () => {
  const { api, merchant } = useApiHarness();
  const post = (path: string, json: unknown, key = merchant.apiKey, idempotencyKey = randomUUID()) =>
    api.call(key, path, { method: "POST", idempotencyKey, json });

  it("creates an endpoint, shows its secret once, never again, and keeps it sealed at rest", async () => {
    const idempotencyKey = randomUUID();
    const created = await post(
      "/v1/webhook-endpoints",
      create("http://127.0.0.1:9/hooks", { description: "main" }),
      merchant.apiKey,
      idempotencyKey,
    );
    expect(created.status).toBe(201);
    const secret: string = created.body.data.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.data).toMatchObject({
      url: "http://127.0.0.1:9/hooks",
      enabled_events: ["deposit.confirmed"],
      description: "main",
      status: "enabled",
      disabled_reason: null,
    });
    const id = created.body.data.id;

    const fetched = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.data.secret).toBeUndefined();
    const listed = await api.call(merchant.apiKey, "/v1/webhook-endpoints");
    expect(listed.body.data.items.map((e: { id: string }) => e.id)).toContain(id);
    expect(listed.text).not.toContain(secret);

    // A retry replays the first answer byte for byte (the same secret), yet no table holds it in clear.
    const replayed = await post(
      "/v1/webhook-endpoints",
      create("http://127.0.0.1:9/hooks", { description: "main" }),
      merchant.apiKey,
      idempotencyKey,
    );
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.text).toBe(created.text);
    const plain = secret.slice("whsec_".length);
    const stored = await api.db.query<{ t: string }>(
      `SELECT string_agg(x, ' ') AS t FROM (
         SELECT response_body AS x FROM idempotency_keys
         UNION ALL SELECT encode(secret_ciphertext, 'base64') FROM webhook_endpoint_secrets) s`,
    );
    expect(stored.rows[0]?.t).not.toContain(plain);
    expect(stored.rows[0]?.t).not.toContain(secret);
  });

  it("updates, disables with a reason, re-enables and deletes", async () => {
    const id = (await post("/v1/webhook-endpoints", create("http://localhost:9/a"))).body.data.id;
    const patched = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${id}`, {
      method: "PATCH",
      json: { enabled_events: ["*"], description: null, status: "disabled" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      enabled_events: ["*"],
      description: null,
      status: "disabled",
      disabled_reason: "manual",
    });
    const enabled = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${id}`, {
      method: "PATCH",
      json: { status: "enabled" },
    });
    expect(enabled.body.data).toMatchObject({ status: "enabled", disabled_reason: null, disabled_at: null });

    const empty = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${id}`, { method: "PATCH", json: {} });
    expect(empty.status).toBe(400);
    const unknownType = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${id}`, {
      method: "PATCH",
      json: { enabled_events: ["deposit.eaten"] },
    });
    expect(unknownType.status).toBe(400);

    const deleted = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${id}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ id, deleted: true });
    expect((await api.call(merchant.apiKey, `/v1/webhook-endpoints/${id}`)).status).toBe(404);
    expect((await api.call(merchant.apiKey, `/v1/webhook-endpoints/${id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("answers 404 for another merchant's endpoint on every route", async () => {
    const id = (await post("/v1/webhook-endpoints", create("http://127.0.0.1:9/b"))).body.data.id;
    const other = await api.merchant();
    const base = `/v1/webhook-endpoints/${id}`;
    expect((await api.call(other.apiKey, base)).status).toBe(404);
    expect((await api.call(other.apiKey, base, { method: "PATCH", json: { status: "disabled" } })).status).toBe(404);
    expect((await api.call(other.apiKey, base, { method: "DELETE" })).status).toBe(404);
    expect((await post(`${base}/rotate-secret`, undefined, other.apiKey)).status).toBe(404);
    expect((await post(`${base}/test`, undefined, other.apiKey)).status).toBe(404);
    expect((await api.call(other.apiKey, `${base}/deliveries`)).status).toBe(404);
    expect((await api.call(other.apiKey, "/v1/webhook-endpoints")).body.data.items).toEqual([]);
    // Redelivering to it, or someone else's event, is 404 too.
    const event = randomUUID();
    expect((await post(`/v1/events/${event}/redeliver`, { endpoint_id: id }, other.apiKey)).status).toBe(404);
    // And the owner still has it, untouched.
    expect((await api.call(merchant.apiKey, base)).body.data.status).toBe("enabled");
  });

  it("refuses non-http(s) URLs and metadata hosts even in a sandbox, and allows loopback there", async () => {
    for (const url of [
      "ftp://127.0.0.1/x",
      "http://169.254.169.254/latest",
      "http://10.0.0.8/x",
      "http://metadata.google.internal/x",
      "http://user:pw@127.0.0.1/x",
      "http://[::ffff:169.254.169.254]/x",
    ]) {
      const answer = await post("/v1/webhook-endpoints", create(url));
      expect({ url, status: answer.status }).toEqual({ url, status: 400 });
    }
    expect((await post("/v1/webhook-endpoints", create("http://[::1]:8080/x"))).status).toBe(201);
  });
});

describe("webhook URL rules in production (SSRF)", () => {
  it("refuses http, private, loopback, link-local, CGNAT, unique-local and metadata targets, also behind DNS", async () => {
    const names: Record<string, string> = {
      "public.example.test": "93.184.216.34",
      "internal.example.test": "10.1.2.3",
      "sneaky.example.test": "169.254.169.254",
      "six.example.test": "fd00:ec2::254",
    };
    const api = await startApiHarness({
      overrides: {
        environment: "production",
        resolveWebhookHost: async (host) => {
          const address = names[host];
          if (!address) throw new Error("ENOTFOUND");
          return [{ address, family: address.includes(":") ? 6 : 4 }];
        },
      },
    });
    try {
      const merchant = await api.merchant("production");
      const attempt = (url: string) =>
        api.call(merchant.apiKey, "/v1/webhook-endpoints", {
          method: "POST",
          idempotencyKey: randomUUID(),
          json: create(url),
        });
      const refused = [
        "http://public.example.test/x",
        "https://127.0.0.1/x",
        "https://localhost.example.test/x",
        "https://[::1]/x",
        "https://10.0.0.1/x",
        "https://172.16.5.4/x",
        "https://192.168.1.1/x",
        "https://100.64.0.1/x",
        "https://169.254.169.254/x",
        "https://[fd00:ec2::254]/x",
        "https://[fe80::1]/x",
        "https://168.63.129.16/x",
        "https://internal.example.test/x",
        "https://sneaky.example.test/x",
        "https://six.example.test/x",
        "https://metadata.google.internal/x",
        "https://0.0.0.0/x",
      ];
      for (const url of refused) {
        const answer = await attempt(url);
        expect({ url, status: answer.status, error: answer.body.error }).toEqual({
          url,
          status: 400,
          error: "validation_error",
        });
      }
      expect((await attempt("https://public.example.test/x")).status).toBe(201);
    } finally {
      await api.stop();
    }
  });
});
