import { randomUUID } from "node:crypto";
import { silentLogger } from "@mp/core";
import { replayDeliveries, startWebhookWorker, type WebhookWorker } from "@mp/webhooks";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startApiHarness, useApiHarness } from "../support/api-harness.ts";
import { deferred } from "../support/deferred.ts";
import { createEndpoint, emitEvent } from "../support/webhook-fixtures.ts";
import { freePort, type Received, startReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

/** Short, so retries happen within a test; the first step over a second, so the retry's timestamp differs. */
const SCHEDULE = [1_500, 300, 300, 300];
const TIMEOUT_MS = 8_000;

const attemptsOf = async (api: ReturnType<typeof useApiHarness>["api"], key: string, endpointId: string) =>
  (await api.call(key, `/v1/webhook-endpoints/${endpointId}/deliveries?limit=200`)).body.data.items as Array<{
    status_code: number | null;
    succeeded: boolean;
    error: string | null;
    latency_ms: number;
    event_id: string | null;
    event_type: string;
    attempt: number;
    response_body: string | null;
  }>;

const receivedCount = (receiver: WebhookReceiver, n: number) =>
  eventually(async () => (receiver.received.length >= n ? receiver.received : undefined), 15_000, 20);

describe("webhook delivery", () => {
  const { api } = useApiHarness();
  let worker: WebhookWorker;
  const receivers: WebhookReceiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const started = await startReceiver(...args);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    worker = await startWebhookWorker({
      db: api.db,
      keyring: api.deps.encryption,
      logger: silentLogger(),
      environment: "sandbox",
      retrySchedule: SCHEDULE,
      timeoutMs: TIMEOUT_MS,
      pollIntervalMs: 50,
      concurrency: 16,
      perEndpointConcurrency: 4,
    });
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await worker.stop();
  });

  it("signs each delivery by Standard Webhooks: verified by the standardwebhooks package, exact bytes", async () => {
    const merchant = await api.merchant();
    const hooks = await receiver();
    const endpoint = await createEndpoint(api, merchant, hooks.url, ["deposit.confirmed"]);
    await emitEvent(api.db, merchant.merchantId, "deposit.pending"); // not subscribed: never sent
    const eventId = await emitEvent(api.db, merchant.merchantId, "deposit.confirmed");
    const [got] = await receivedCount(hooks, 1);
    if (!got) throw new Error("nothing received");
    const payload = new Webhook(endpoint.secret).verify(got.body, got.headers) as Record<string, unknown>;
    expect(got.headers["webhook-id"]).toBe(eventId);
    expect(got.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(payload).toMatchObject({
      id: eventId,
      type: "deposit.confirmed",
      environment: "sandbox",
      object_type: "deposit",
      object_version: 1,
      data: { status: "CONFIRMED", amount: "12.500000", note: "é ✓ \u2028" },
    });
    // A byte changed is refused: the signature covers exactly what was sent.
    expect(() => new Webhook(endpoint.secret).verify(got.body.replace("12.5", "92.5"), got.headers)).toThrow();
    const attempts = await eventually(async () => {
      const list = await attemptsOf(api, merchant.apiKey, endpoint.id);
      return list.length > 0 ? list : undefined;
    });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      status_code: 200,
      succeeded: true,
      error: null,
      event_id: eventId,
      response_body: "ok",
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(hooks.received).toHaveLength(1);
  });

  it("retries a receiver that is down until it is up: same webhook-id, new timestamp", async () => {
    const merchant = await api.merchant();
    const port = await freePort();
    const endpoint = await createEndpoint(api, merchant, `http://127.0.0.1:${port}/hooks`);
    const eventId = await emitEvent(api.db, merchant.merchantId);
    const firstFailure = await eventually(async () => (await attemptsOf(api, merchant.apiKey, endpoint.id))[0]);
    expect(firstFailure).toMatchObject({ status_code: null, succeeded: false });
    expect(firstFailure.error).toMatch(/ECONNREFUSED/);
    const failedIds = async (failed: boolean) => {
      const answer = await api.call(merchant.apiKey, `/v1/events?delivery_failed=${failed}`);
      expect(answer.status).toBe(200);
      return answer.body.data.items.map((event: { id: string }) => event.id);
    };
    // While it is being retried the event counts as failed delivery; once delivered, it no longer does.
    expect(await failedIds(true)).toEqual([eventId]);
    expect(await failedIds(false)).toEqual([]);
    const failedAt = Math.floor(Date.now() / 1000);
    const hooks = await receiver(undefined, port);
    const [got] = await receivedCount(hooks, 1);
    if (!got) throw new Error("nothing received");
    expect(got.headers["webhook-id"]).toBe(eventId);
    expect(Number(got.headers["webhook-timestamp"])).toBeGreaterThanOrEqual(failedAt);
    new Webhook(endpoint.secret).verify(got.body, got.headers);
    const attempts = await eventually(async () => {
      const list = await attemptsOf(api, merchant.apiKey, endpoint.id);
      return list.some((a) => a.succeeded) ? list : undefined;
    });
    // Newest first: the delivery that got through, after every earlier attempt failed (on a loaded
    // machine the receiver may come up after the second attempt: then the third gets through).
    const [delivered, ...failedBefore] = attempts;
    expect(delivered?.succeeded).toBe(true);
    expect(delivered?.attempt).toBeGreaterThanOrEqual(2);
    expect(failedBefore.map((a) => [a.attempt, a.succeeded])).toEqual(
      failedBefore.map((_, i) => [(delivered?.attempt ?? 0) - 1 - i, false]),
    );
    expect(await failedIds(true)).toEqual([]);
    expect(await failedIds(false)).toEqual([eventId]);
  });

  it("honours a 429's Retry-After", async () => {
    const merchant = await api.merchant();
    const hooks = await receiver((received, res) => {
      if (hooks.received.indexOf(received) === 0) {
        res.writeHead(429, { "Retry-After": "3" });
        res.end("slow down");
      } else {
        res.end("ok");
      }
    });
    await createEndpoint(api, merchant, hooks.url);
    await emitEvent(api.db, merchant.merchantId);
    const [first, second] = await receivedCount(hooks, 2);
    if (!first || !second) throw new Error("not retried");
    // The schedule alone would retry after 1.35-1.65 s.
    expect(second.at - first.at).toBeGreaterThanOrEqual(2_900);
    expect(second.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
  });

  it("disables an endpoint that answers 410 Gone and cancels what it had pending", async () => {
    const merchant = await api.merchant();
    const hooks = await receiver((_r, res) => {
      res.statusCode = 410;
      res.end("gone");
    });
    const endpoint = await createEndpoint(api, merchant, hooks.url);
    await emitEvent(api.db, merchant.merchantId);
    const disabled = await eventually(async () => {
      const answer = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${endpoint.id}`);
      return answer.body.data.status === "disabled" ? answer.body.data : undefined;
    });
    expect(disabled).toMatchObject({ disabled_reason: "gone" });
    // Later events make no delivery for it.
    await emitEvent(api.db, merchant.merchantId);
    await new Promise((r) => setTimeout(r, 500));
    expect(hooks.received).toHaveLength(1);
    const rows = await api.db.query("SELECT status FROM webhook_deliveries WHERE endpoint_id = $1", [endpoint.id]);
    expect(rows.rows.map((r) => r.status)).toEqual(["failed"]);
  });

  it("stores a receiver's answer holding a NUL byte (PostgreSQL text cannot), and another merchant's result with it", async () => {
    // A receiver chooses its answer's bytes: one that PostgreSQL refuses must not stop the batch of
    // results it is written with (other merchants' included) from being written, again and again.
    const [nul, plain] = [await api.merchant(), await api.merchant()];
    const nulHooks = await receiver((_r, res) => res.end("ok\u0000done"));
    const plainHooks = await receiver();
    const nulEndpoint = await createEndpoint(api, nul, nulHooks.url);
    const plainEndpoint = await createEndpoint(api, plain, plainHooks.url);
    await emitEvent(api.db, nul.merchantId);
    await emitEvent(api.db, plain.merchantId);
    const settled = async (key: string, endpointId: string) =>
      eventually(async () => {
        const list = await attemptsOf(api, key, endpointId);
        return list.length > 0 ? list : undefined;
      });
    expect((await settled(nul.apiKey, nulEndpoint.id))[0]).toMatchObject({
      succeeded: true,
      response_body: "ok\ufffddone",
    });
    expect((await settled(plain.apiKey, plainEndpoint.id))[0]).toMatchObject({ succeeded: true, response_body: "ok" });
  });

  it("disables and flags an endpoint failing for 5 days; stores at most 1 KiB of an answer", async () => {
    const merchant = await api.merchant();
    const hooks = await receiver((_r, res) => {
      res.statusCode = 500;
      res.end("é".repeat(3_000)); // 6,000 bytes, two per character
    });
    const endpoint = await createEndpoint(api, merchant, hooks.url);
    await emitEvent(api.db, merchant.merchantId);
    const [attempt] = await eventually(async () => {
      const list = await attemptsOf(api, merchant.apiKey, endpoint.id);
      return list.length > 0 ? list : undefined;
    });
    expect(attempt).toMatchObject({ status_code: 500, succeeded: false });
    expect(Buffer.byteLength(attempt?.response_body ?? "")).toBe(1_024);
    expect(attempt?.response_body).toBe("é".repeat(512));
    const failing = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${endpoint.id}`);
    expect(failing.body.data).toMatchObject({ status: "enabled" });
    expect(failing.body.data.failing_since).not.toBeNull();

    // Five days on (moved in the database, whose clock decides), the next failure disables it.
    await api.db.query(
      "UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1",
      [endpoint.id],
    );
    const disabled = await eventually(async () => {
      const answer = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${endpoint.id}`);
      return answer.body.data.status === "disabled" ? answer.body.data : undefined;
    });
    expect(disabled).toMatchObject({ disabled_reason: "failing" });
    const pending = await api.db.query(
      "SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'",
      [endpoint.id],
    );
    expect(pending.rows).toHaveLength(0);
  });

  it("signs with both secrets during a rotation's window, then with the new one only", async () => {
    const merchant = await api.merchant();
    const hooks = await receiver();
    const endpoint = await createEndpoint(api, merchant, hooks.url);
    const rotated = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      method: "POST",
      idempotencyKey: randomUUID(),
    });
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.data.secret;
    expect(newSecret).not.toBe(endpoint.secret);
    const expires = Date.parse(rotated.body.data.previous_secret_expires_at);
    expect(Math.abs(expires - Date.now() - 24 * 3_600_000)).toBeLessThan(60_000);

    await emitEvent(api.db, merchant.merchantId);
    const [inWindow] = await receivedCount(hooks, 1);
    if (!inWindow) throw new Error("nothing received");
    expect(inWindow.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    new Webhook(endpoint.secret).verify(inWindow.body, inWindow.headers);
    new Webhook(newSecret).verify(inWindow.body, inWindow.headers);

    // 24 h later, moved in the database. Workers keep opened secrets per rotation (secret_version) and
    // drop one by its expiry as time passes; a moved clock is a change they must be told of.
    await api.db.tx(async (c) => {
      await c.query(
        "UPDATE webhook_endpoint_secrets SET expires_at = now() - interval '1 second' WHERE endpoint_id = $1 AND expires_at IS NOT NULL",
        [endpoint.id],
      );
      await c.query("UPDATE webhook_endpoints SET secret_version = secret_version + 1 WHERE id = $1", [endpoint.id]);
    });
    await emitEvent(api.db, merchant.merchantId);
    const after = (await receivedCount(hooks, 2))[1] as Received;
    expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    new Webhook(newSecret).verify(after.body, after.headers);
    expect(() => new Webhook(endpoint.secret).verify(after.body, after.headers)).toThrow();
  });

  it("never lets a hanging endpoint delay another's deliveries", async () => {
    const merchant = await api.merchant();
    const hanging = await receiver(() => {}); // never answers
    const healthy = await receiver();
    await createEndpoint(api, merchant, hanging.url, ["deposit.pending"]);
    await createEndpoint(api, merchant, healthy.url, ["deposit.confirmed"]);
    // More hanging deliveries than the worker has slots (16) in all.
    for (let i = 0; i < 30; i++) await emitEvent(api.db, merchant.merchantId, "deposit.pending");
    await eventually(async () => (hanging.received.length >= 4 ? true : undefined));
    const started = Date.now();
    for (let i = 0; i < 10; i++) await emitEvent(api.db, merchant.merchantId, "deposit.confirmed");
    await receivedCount(healthy, 10);
    // Well under one deadline of the hanging endpoint (TIMEOUT_MS).
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS / 2);
    // Its cap: never more than 4 requests at once to one endpoint.
    expect(hanging.received.length).toBe(4);
    await hanging.stop();
  });

  it("sends a test event, redelivers an event on request, and never sends a rolled-back event", async () => {
    const merchant = await api.merchant();
    const hooks = await receiver();
    const endpoint = await createEndpoint(api, merchant, hooks.url);
    const test = await api.call(merchant.apiKey, `/v1/webhook-endpoints/${endpoint.id}/test`, {
      method: "POST",
      idempotencyKey: randomUUID(),
    });
    expect(test.status).toBe(202);
    const [testReceived] = await receivedCount(hooks, 1);
    if (!testReceived) throw new Error("no test event");
    expect(new Webhook(endpoint.secret).verify(testReceived.body, testReceived.headers)).toMatchObject({
      type: "webhook_endpoint.test",
      id: test.body.data.id,
    });

    await expect(
      api.db.tx(async (client) => {
        const { appendEvent } = await import("@mp/events");
        await appendEvent(client, {
          merchantId: merchant.merchantId,
          type: "deposit.confirmed",
          objectType: "deposit",
          objectId: randomUUID(),
          data: {},
        });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");

    const eventId = await emitEvent(api.db, merchant.merchantId);
    await receivedCount(hooks, 2);
    const again = await api.call(merchant.apiKey, `/v1/events/${eventId}/redeliver`, {
      method: "POST",
      idempotencyKey: randomUUID(),
      json: { endpoint_id: endpoint.id },
    });
    expect(again.status).toBe(202);
    expect(again.body.data.deliveries).toHaveLength(1);
    const received = await receivedCount(hooks, 3);
    expect(received.map((r) => r.headers["webhook-id"])).toEqual([test.body.data.id, eventId, eventId]);
    await new Promise((r) => setTimeout(r, 300));
    expect(hooks.received).toHaveLength(3);
  });

  it("replays a time range to an endpoint that was disabled, once", async () => {
    const merchant = await api.merchant();
    const hooks = await receiver();
    const endpoint = await createEndpoint(api, merchant, hooks.url);
    const from = new Date(Date.now() - 1_000);
    await api.call(merchant.apiKey, `/v1/webhook-endpoints/${endpoint.id}`, {
      method: "PATCH",
      json: { status: "disabled" },
    });
    const missed = [await emitEvent(api.db, merchant.merchantId), await emitEvent(api.db, merchant.merchantId)];
    await api.call(merchant.apiKey, `/v1/webhook-endpoints/${endpoint.id}`, {
      method: "PATCH",
      json: { status: "enabled" },
    });
    const to = new Date(Date.now() + 1_000);
    expect(await replayDeliveries(api.db, { from, to, merchantId: merchant.merchantId })).toBe(2);
    const received = await receivedCount(hooks, 2);
    expect(received.map((r) => r.headers["webhook-id"]).sort()).toEqual([...missed].sort());
    await eventually(async () => {
      const { rows } = await api.db.query(
        "SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'",
        [endpoint.id],
      );
      return rows.length === 0 ? true : undefined;
    });
    expect(await replayDeliveries(api.db, { from, to, merchantId: merchant.merchantId })).toBe(0);
  });

  it("keeps the outcome of a delivery in flight when its endpoint is disabled: delivered stays delivered, not replayed", async () => {
    // Disabling cancels what is pending, including a delivery being POSTed: when its receiver took it,
    // the 200 was lost under the cancel and a replay sent the event twice.
    const merchant = await api.merchant();
    const release = deferred();
    // Holds every answer until released; then the first request gets a 200, the second a 500.
    const hooks = await receiver((_r, res) => {
      const arrival = hooks.received.length;
      void release.promise.then(() => {
        res.statusCode = arrival === 2 ? 500 : 200;
        res.end("ok");
      });
    });
    const endpoint = await createEndpoint(api, merchant, hooks.url);
    const from = new Date(Date.now() - 1_000);
    await emitEvent(api.db, merchant.merchantId);
    await emitEvent(api.db, merchant.merchantId);
    const [okEvent = "", failedEvent = ""] = (await receivedCount(hooks, 2)).map((r) => r.headers["webhook-id"] ?? "");
    const patch = (status: string) =>
      api.call(merchant.apiKey, `/v1/webhook-endpoints/${endpoint.id}`, { method: "PATCH", json: { status } });
    expect((await patch("disabled")).status).toBe(200);
    release.resolve();
    const statusOf = async (eventId: string) =>
      (
        await api.db.query<{ status: string }>(
          "SELECT status FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = $2",
          [endpoint.id, eventId],
        )
      ).rows.map((r) => r.status);
    // The 200 is recorded; the 500 stays canceled (no retry to a disabled endpoint).
    await eventually(async () => ((await statusOf(okEvent)).join() === "succeeded" ? true : undefined));
    await eventually(async () => ((await statusOf(failedEvent)).join() === "canceled" ? true : undefined));
    expect(hooks.received).toHaveLength(2);
    expect((await patch("enabled")).status).toBe(200);
    const to = new Date(Date.now() + 1_000);
    // Only the event the receiver refused is sent again.
    expect(await replayDeliveries(api.db, { from, to, merchantId: merchant.merchantId })).toBe(1);
    expect((await receivedCount(hooks, 3))[2]?.headers["webhook-id"]).toBe(failedEvent);
  });
});

describe("webhook delivery in production (SSRF after DNS)", () => {
  it("refuses at delivery a name that resolved to a public address at creation and to loopback now", async () => {
    const hooks = await startReceiver();
    const port = new URL(hooks.url).port;
    const api = await startApiHarness({
      overrides: {
        environment: "production",
        resolveWebhookHost: async () => [{ address: "93.184.216.34", family: 4 }],
      },
    });
    const worker = await startWebhookWorker({
      db: api.db,
      keyring: api.deps.encryption,
      logger: silentLogger(),
      environment: "production",
      retrySchedule: [],
      pollIntervalMs: 50,
      // DNS rebinding: the same name now answers the loopback address.
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    try {
      const merchant = await api.merchant("production");
      const endpoint = await createEndpoint(api, merchant, `https://rebind.example.test:${port}/hooks`);
      // And a stored URL whose rules changed under it (an IP literal): checked again at delivery too.
      const literal = await createEndpoint(api, merchant, `https://93.184.216.34:${port}/hooks`);
      await api.db.query("UPDATE webhook_endpoints SET url = $2 WHERE id = $1", [
        literal.id,
        `https://[::ffff:127.0.0.1]:${port}/hooks`,
      ]);
      await emitEvent(api.db, merchant.merchantId);
      for (const id of [endpoint.id, literal.id]) {
        const [attempt] = await eventually(async () => {
          const list = await attemptsOf(api as never, merchant.apiKey, id);
          return list.length > 0 ? list : undefined;
        });
        expect(attempt).toMatchObject({ status_code: null, succeeded: false });
        expect(attempt?.error).toMatch(/loopback addresses are refused/);
      }
      expect(hooks.received).toHaveLength(0);
    } finally {
      await worker.stop();
      await api.stop();
      await hooks.stop();
    }
  });
});
