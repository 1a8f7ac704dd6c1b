import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransactionRolledBackError } from "../src/database.ts";
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
      Array.from({ length: 20 }, (_, i) => testDb.db.query<{ n: number }>(statement, [(i % 2) + 1])),
    );
    expect(results.map((r) => r.rows[0]?.n)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 2) + 1));
  });
});
