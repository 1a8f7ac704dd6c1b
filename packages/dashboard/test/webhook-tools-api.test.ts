import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestMerchant } from "../../../test/support/api-harness.ts";
import { createEndpoint } from "../../../test/support/webhook-fixtures.ts";
import { merchantsWithRoleUsers } from "./support/dashboard-client.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

const RECEIVER = "https://receiver.example/hooks";

/**
 * The webhooks page's own routes: each endpoint's health (success rate, last error, next retry)
 * from its stored attempts, the event types to pick, one event's payload, secret rotation (writers
 * only, audited) and deletion; another merchant's endpoint or event is 404.
 */
describe("dashboard webhook tools: health, event types, payloads, rotation, deletion", () => {
  const { api, dashboard } = useServedDashboard({
    overrides: { resolveWebhookHost: async () => [{ address: "93.184.216.34", family: 4 }] },
  });
  let a: TestMerchant;
  let b: TestMerchant;
  let endpointOfA: string;
  let endpointOfB: string;
  /** A delivery of `endpointId` with its attempts as the worker stores them: [succeeded, status code, error]. */
  const delivery = async (
    m: TestMerchant,
    endpointId: string,
    attempts: ReadonlyArray<readonly [boolean, number | null, string | null]>,
    nextAttemptAt: Date,
  ) => {
    const id = randomUUID();
    await api.db.query(
      `INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_type, status, attempts, next_attempt_at)
       VALUES ($1, $2, $3, 'webhook_endpoint.test', 'pending', $4, $5)`,
      [id, m.merchantId, endpointId, attempts.length, nextAttemptAt],
    );
    for (const [i, [succeeded, status, error]] of attempts.entries()) {
      await api.db.query(
        `INSERT INTO webhook_delivery_attempts
           (id, delivery_id, endpoint_id, attempt, attempted_at, status_code, latency_ms, error, response_body, succeeded)
         VALUES ($1, $2, $3, $4, now() - make_interval(mins => $5), $6, 12, $7, 'nope', $8)`,
        [randomUUID(), id, endpointId, i + 1, 10 - i, status, error, succeeded],
      );
    }
  };

  beforeAll(async () => {
    ({ a, b } = await merchantsWithRoleUsers(api, { a: ["owner", "viewer"], b: ["owner"] }));
    endpointOfA = (await createEndpoint(api, a, RECEIVER)).id;
    endpointOfB = (await createEndpoint(api, b, RECEIVER)).id;
    const person = { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace" };
    await api.call(a.apiKey, "/v1/customers", { method: "POST", idempotencyKey: "ca", json: person });
  });

  it("computes each endpoint's success rate, last error and next retry from its attempts", async () => {
    const next = new Date(Date.now() + 3_600_000);
    await delivery(
      a,
      endpointOfA,
      [
        [true, 200, null],
        [false, 500, "HTTP 500"],
        [false, null, "connection refused"],
      ],
      next,
    );
    const viewer = await dashboard.signedIn("viewer@a.example");
    const health = await viewer.call("GET", `/merchants/${a.merchantId}/webhook-health`);
    expect(health.status).toBe(200);
    expect(health.body.items).toEqual([
      {
        endpoint_id: endpointOfA,
        days: 7,
        attempts: 3,
        succeeded: 1,
        last_error: { at: expect.any(String), status_code: null, error: "connection refused" },
        next_retry_at: next.toISOString(),
        // This delivery, and the customer.created one of beforeAll (no worker sends it here).
        pending: 2,
      },
    ]);
    const types = await viewer.call("GET", `/merchants/${a.merchantId}/event-types`);
    expect(types.body.items).toContain("customer.created");
  });

  it("rotates the signing secret for a writer, audited; a viewer is refused and another merchant gets 404", async () => {
    const path = `/merchants/${a.merchantId}/webhook-endpoints/${endpointOfA}/rotate-secret`;
    expect((await (await dashboard.signedIn("viewer@a.example")).call("POST", path)).status).toBe(403);
    const ownerB = await dashboard.signedIn("owner@b.example");
    expect((await ownerB.call("POST", path)).status).toBe(404);
    expect(
      (await ownerB.call("POST", `/merchants/${b.merchantId}/webhook-endpoints/${endpointOfA}/rotate-secret`)).status,
    ).toBe(404);
    const owner = await dashboard.signedIn("owner@a.example");
    expect((await owner.call("POST", path, { csrf: null })).status).toBe(403);
    const rotated = await owner.call("POST", path);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    expect(rotated.body).toMatchObject({ id: endpointOfA, secret: expect.stringMatching(/^whsec_/) });
    const audit = await api.db.query<{ actor: string; action: string }>(
      "SELECT actor, action FROM operator_audit_log WHERE object_id = $1 AND action LIKE '%rotated'",
      [endpointOfA],
    );
    expect(audit.rows).toEqual([{ actor: "dashboard:owner@a.example", action: "webhook_endpoint.secret_rotated" }]);
  });

  it("reads one event of the merchant's only, and deletes an endpoint", async () => {
    const event = (
      await api.db.query<{ id: string }>("SELECT id FROM events WHERE merchant_id = $1 LIMIT 1", [a.merchantId])
    ).rows[0]?.id;
    expect(event).toBeDefined();
    const owner = await dashboard.signedIn("owner@a.example");
    expect((await owner.call("GET", `/merchants/${a.merchantId}/events/${event}`)).body.id).toBe(event);
    const ownerB = await dashboard.signedIn("owner@b.example");
    expect((await ownerB.call("GET", `/merchants/${b.merchantId}/events/${event}`)).status).toBe(404);
    expect((await ownerB.call("DELETE", `/merchants/${b.merchantId}/webhook-endpoints/${endpointOfA}`)).status).toBe(
      404,
    );
    const deleted = await ownerB.call("DELETE", `/merchants/${b.merchantId}/webhook-endpoints/${endpointOfB}`);
    expect(deleted.body).toEqual({ id: endpointOfB, deleted: true });
    expect((await ownerB.call("GET", `/merchants/${b.merchantId}/webhook-health`)).body.items).toEqual([]);
  });
});
