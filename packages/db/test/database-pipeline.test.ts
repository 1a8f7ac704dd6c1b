import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransactionRolledBackError } from "../src/database.ts";
import { queryNamed } from "../src/named-statement.ts";
import { createTestDatabase, type TestDatabase } from "../src/testing.ts";

describe("Database in pipeline mode (server and embedded)", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase({ migrate: false, poolSize: 4 });
    await testDb.db.query("CREATE TABLE pipeline_probe (n int PRIMARY KEY)");
  });
  afterAll(async () => {
    await testDb.drop();
  });

  it("commits what the callback wrote, including a last statement it did not await", async () => {
    const pending = await testDb.db.tx(async (client) => {
      await client.query("INSERT INTO pipeline_probe VALUES (1)");
      const last = client.query("INSERT INTO pipeline_probe VALUES (2)");
      return { last };
    });
    expect((await pending.last).rowCount).toBe(1);
    const { rows } = await testDb.db.query<{ n: number }>("SELECT n FROM pipeline_probe ORDER BY n");
    expect(rows.map((r) => r.n)).toEqual([1, 2]);
  });

  it("throws and commits nothing when a statement it did not await fails", async () => {
    let last: Promise<unknown> | undefined;
    await expect(
      testDb.db.tx(async (client) => {
        await client.query("INSERT INTO pipeline_probe VALUES (3)");
        last = client.query("INSERT INTO pipeline_probe VALUES (1)"); // duplicate key
        last.catch(() => {});
      }),
    ).rejects.toBeInstanceOf(TransactionRolledBackError);
    await expect(last).rejects.toMatchObject({ code: "23505" });
    const { rows } = await testDb.db.query("SELECT n FROM pipeline_probe WHERE n = 3");
    expect(rows).toEqual([]);
  });

  it("runs a named statement on every connection of the pool, concurrently, with its own parameters", async () => {
    const statement = { name: "pipeline_probe_by_n", text: "SELECT n FROM pipeline_probe WHERE n = $1" };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => queryNamed<{ n: number }>(testDb.db, statement, [(i % 2) + 1])),
    );
    expect(results.map((r) => r.rows[0]?.n)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2) + 1));
  });

  it("sends the named statements of one event-loop turn together, on one connection", async () => {
    const pid = { name: "pipeline_probe_backend_pid", text: "SELECT pg_backend_pid() AS pid, $1::int AS i" };
    const together = await Promise.all(
      Array.from({ length: 8 }, (_, i) => queryNamed<{ pid: number; i: number }>(testDb.db, pid, [i])),
    );
    expect(together.map((r) => r.rows[0]?.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(together.map((r) => r.rows[0]?.pid)).size).toBe(1);
  });

  it("cuts a burst into batches of at most 32, so it spreads over the pool's connections", async () => {
    const pid = { name: "pipeline_probe_backend_pid", text: "SELECT pg_backend_pid() AS pid, $1::int AS i" };
    const burst = await Promise.all(
      Array.from({ length: 96 }, (_, i) => queryNamed<{ pid: number; i: number }>(testDb.db, pid, [i])),
    );
    expect(burst.map((r) => r.rows[0]?.i)).toEqual(Array.from({ length: 96 }, (_, i) => i));
    const perConnection = new Map<number, number>();
    for (const r of burst) {
      const backend = r.rows[0]?.pid ?? -1;
      perConnection.set(backend, (perConnection.get(backend) ?? 0) + 1);
    }
    const embedded = !process.env.DATABASE_URL;
    // The embedded database is one session: one backend pid whatever the connection.
    if (!embedded) expect(perConnection.size).toBeGreaterThanOrEqual(3);
    expect(Math.max(...perConnection.values())).toBeLessThanOrEqual(embedded ? 96 : 64);
  });

  it("fails only the statement that fails when a batch shares a connection, and the connection stays usable", async () => {
    const asInt = { name: "pipeline_probe_as_int", text: "SELECT $1::int AS v" };
    const batch = [
      queryNamed<{ v: number }>(testDb.db, asInt, ["1"]),
      queryNamed<{ v: number }>(testDb.db, asInt, ["not a number"]),
      queryNamed<{ v: number }>(testDb.db, asInt, ["3"]),
    ];
    const [first, second, third] = await Promise.allSettled(batch);
    expect(first).toMatchObject({ status: "fulfilled", value: { rows: [{ v: 1 }] } });
    expect(second).toMatchObject({ status: "rejected", reason: { code: "22P02" } });
    expect(third).toMatchObject({ status: "fulfilled", value: { rows: [{ v: 3 }] } });
    const after = await Promise.all([queryNamed<{ v: number }>(testDb.db, asInt, ["4"]), testDb.db.query("SELECT 1")]);
    expect(after[0].rows).toEqual([{ v: 4 }]);
  });
});
