import { randomUUID } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendEvent, appendEvents } from "../src/index.ts";

let t: TestDatabase;
let merchantId: string;
beforeAll(async () => {
  t = await createTestDatabase();
  merchantId = randomUUID();
  await t.db.query(
    "INSERT INTO merchants (id, name, environment, derivation_account) VALUES ($1, 'Events', 'production', 900)",
    [merchantId],
  );
});
afterAll(async () => {
  await t?.drop();
});

const versions = async (objectId: string) =>
  (
    await t.db.query<{ type: string; object_version: number; environment: string }>(
      "SELECT type, object_version, environment FROM events WHERE object_id = $1 ORDER BY seq",
      [objectId],
    )
  ).rows;

describe("appendEvents", () => {
  it("numbers versions per object in the order given, also for one object twice in one call", async () => {
    const a = randomUUID();
    const b = randomUUID();
    const event = (objectId: string, type: "deposit.confirmed" | "deposit.held") => ({
      merchantId,
      type,
      objectType: "deposit" as const,
      objectId,
      data: { id: objectId },
    });
    expect((await appendEvent(t.db, event(a, "deposit.confirmed"))).version).toBe(1);
    const appended = await t.db.tx((c) =>
      appendEvents(c, [event(b, "deposit.confirmed"), event(a, "deposit.confirmed"), event(a, "deposit.held")]),
    );
    expect(appended.map((e) => e.version)).toEqual([1, 2, 3]);
    expect(await versions(a)).toEqual([
      { type: "deposit.confirmed", object_version: 1, environment: "production" },
      { type: "deposit.confirmed", object_version: 2, environment: "production" },
      { type: "deposit.held", object_version: 3, environment: "production" },
    ]);
  });

  it("refuses an event of an unknown merchant, appending none of the call's events", async () => {
    const objectId = randomUUID();
    const input = { type: "wallet.created" as const, objectType: "wallet" as const, objectId, data: {} };
    await expect(
      t.db.tx((c) =>
        appendEvents(c, [
          { ...input, merchantId },
          { ...input, merchantId: randomUUID() },
        ]),
      ),
    ).rejects.toThrow(/name no merchant/);
    expect(await versions(objectId)).toEqual([]);
  });
});
