import { describe, expect, it } from "vitest";
import { createDatabase, migrate } from "../src/index.ts";
import { createTestDatabase } from "../src/testing.ts";

describe("migrations", () => {
  it("apply once under concurrent starts (advisory lock) on the configured database", async () => {
    const test = await createTestDatabase({ migrate: false });
    const others = Array.from({ length: 4 }, () =>
      createDatabase({ connectionString: test.connectionString, engine: test.db.engine, max: 2 }),
    );
    try {
      const results = await Promise.all([test.db, ...others].map((db) => migrate(db)));
      const applied = results.flatMap((r) => r.applied);
      expect(new Set(applied).size).toBe(applied.length);
      const recorded = await test.db.query<{ n: number }>("SELECT count(*)::int AS n FROM schema_migrations");
      expect(recorded.rows[0]?.n).toBe(applied.length);
    } finally {
      for (const db of others) await db.close();
      await test.drop();
    }
  });
});
