import { randomUUID } from "node:crypto";
import { createMerchant } from "@mp/api";
import type { Database } from "@mp/db";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deferred } from "../support/deferred.ts";

/**
 * Migration 0380: an attempt's delivery is checked per statement, not by foreign keys. The same
 * guarantees: no attempt without its delivery (of the same endpoint), attempts go with their
 * delivery however it is deleted, a delivery's id cannot change under its attempts.
 */
const onServer = Boolean(process.env.DATABASE_URL);

describe("webhook attempts' references (checked per statement)", () => {
  let testDb: TestDatabase;
  let db: Database;
  let merchantId: string;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = testDb.db;
    ({ merchantId } = await createMerchant(db, { name: "attempt-refs", environment: "sandbox" }));
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  /** An endpoint and `count` events, so `count` deliveries by the fan-out trigger. */
  async function endpointWithDeliveries(count: number) {
    const endpointId = randomUUID();
    await db.query(
      "INSERT INTO webhook_endpoints (id, merchant_id, url, enabled_events) VALUES ($1, $2, 'https://example.com/h', '{*}')",
      [endpointId, merchantId],
    );
    await db.query(
      `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, data)
       SELECT gen_random_uuid(), $1, 'sandbox', 'deposit.confirmed', 'deposit', gen_random_uuid()::text, 1, '{}'
         FROM generate_series(1, $2)`,
      [merchantId, count],
    );
    const { rows } = await db.query<{ id: string; event_id: string }>(
      "SELECT id, event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id",
      [endpointId],
    );
    return { endpointId, deliveries: rows };
  }

  const insertAttempts = (pairs: Array<[deliveryId: string, endpointId: string]>) =>
    db.query(
      `INSERT INTO webhook_delivery_attempts (id, delivery_id, endpoint_id, attempt, attempted_at, latency_ms, succeeded)
       SELECT gen_random_uuid(), d, e, 1, now(), 3, true FROM unnest($1::uuid[], $2::uuid[]) AS p (d, e)`,
      [pairs.map(([d]) => d), pairs.map(([, e]) => e)],
    );
  const attemptsOf = async (deliveryIds: string[]) =>
    Number(
      (
        await db.query<{ n: string }>(
          "SELECT count(*) AS n FROM webhook_delivery_attempts WHERE delivery_id = ANY ($1::uuid[])",
          [deliveryIds],
        )
      ).rows[0]?.n,
    );

  it("refuses, with the foreign key's SQLSTATE, an attempt of no delivery or of another endpoint's", async () => {
    const a = await endpointWithDeliveries(2);
    const b = await endpointWithDeliveries(1);
    const [first, second] = a.deliveries.map((d) => d.id) as [string, string];
    await insertAttempts([
      [first, a.endpointId],
      [second, a.endpointId],
      [first, a.endpointId],
    ]);
    expect(await attemptsOf([first, second])).toBe(3);
    // The whole statement fails, the valid rows with the invalid one.
    await expect(
      insertAttempts([
        [second, a.endpointId],
        [randomUUID(), a.endpointId],
      ]),
    ).rejects.toMatchObject({ code: "23503" });
    await expect(insertAttempts([[second, b.endpointId]])).rejects.toMatchObject({ code: "23503" });
    expect(await attemptsOf([first, second])).toBe(3);
  });

  it("deletes the attempts with their deliveries: endpoint deleted, event pruned, delivery deleted, truncated", async () => {
    const byEndpoint = await endpointWithDeliveries(3);
    const byEvent = await endpointWithDeliveries(2);
    const direct = await endpointWithDeliveries(2);
    for (const e of [byEndpoint, byEvent, direct]) {
      await insertAttempts(e.deliveries.map((d) => [d.id, e.endpointId]));
    }
    const ids = (e: { deliveries: Array<{ id: string }> }) => e.deliveries.map((d) => d.id);

    await db.query("DELETE FROM webhook_endpoints WHERE id = $1", [byEndpoint.endpointId]);
    expect(await attemptsOf(ids(byEndpoint))).toBe(0);
    await db.query("DELETE FROM events WHERE id = $1", [byEvent.deliveries[0]?.event_id]);
    expect(await attemptsOf(ids(byEvent))).toBe(1);
    await db.query("DELETE FROM webhook_deliveries WHERE id = ANY ($1::uuid[])", [ids(direct)]);
    expect(await attemptsOf(ids(direct))).toBe(0);
    // The others' attempts stay.
    expect(await attemptsOf(ids(byEvent).slice(1))).toBe(1);

    await expect(
      db.query("UPDATE webhook_deliveries SET id = gen_random_uuid() WHERE id = $1", [ids(byEvent)[1]]),
    ).rejects.toMatchObject({ code: "23503" });
    await expect(
      db.query("UPDATE webhook_deliveries SET endpoint_id = $2 WHERE id = $1", [ids(byEvent)[1], direct.endpointId]),
    ).rejects.toMatchObject({ code: "23503" });

    await db.query("TRUNCATE webhook_deliveries");
    expect(
      Number((await db.query<{ n: string }>("SELECT count(*) AS n FROM webhook_delivery_attempts")).rows[0]?.n),
    ).toBe(0);
  });

  it.skipIf(!onServer)(
    "makes a delete of a delivery wait for a transaction inserting its attempt, then takes the attempt too (PostgreSQL only: it waits on a lock another connection holds; the embedded database has one connection)",
    async () => {
      const e = await endpointWithDeliveries(1);
      const deliveryId = e.deliveries[0]?.id as string;
      const { promise: gate, resolve: commit } = deferred();
      const { promise: insertedYet, resolve: inserted } = deferred();
      const inserting = db.tx(async (c) => {
        await c.query(
          `INSERT INTO webhook_delivery_attempts (id, delivery_id, endpoint_id, attempt, attempted_at, latency_ms, succeeded)
         VALUES (gen_random_uuid(), $1, $2, 1, now(), 3, true)`,
          [deliveryId, e.endpointId],
        );
        inserted();
        await gate;
      });
      await insertedYet;
      let deleted = false;
      const deleting = db.query("DELETE FROM webhook_deliveries WHERE id = $1", [deliveryId]).then(() => {
        deleted = true;
      });
      // Blocked on the inserter's FOR KEY SHARE: waiting for a lock, not done.
      await expect
        .poll(
          async () =>
            (
              await db.query<{ n: string }>(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
              )
            ).rows[0]?.n,
          { timeout: 20_000, interval: 20 },
        )
        .toBe("1");
      expect(deleted).toBe(false);
      commit();
      await inserting;
      await deleting;
      expect(await attemptsOf([deliveryId])).toBe(0);
    },
  );
});
