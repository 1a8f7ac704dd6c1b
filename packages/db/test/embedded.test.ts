import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase, type Database, migrate, openDatabase, startEmbedded } from "../src/index.ts";

describe("embedded PGlite behind the wire server", () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "mpemb-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  /** A fresh in-memory PGlite behind its socket, a pool of `max` on it, both closed after `fn`. */
  const withEmbedded = async (
    max: number,
    fn: (db: Database, connectionString: string) => Promise<void>,
  ): Promise<void> => {
    const server = await startEmbedded({ dataDir: freshDir(), memory: true });
    const db = createDatabase({ connectionString: server.connectionString, engine: "pglite", max });
    try {
      await fn(db, server.connectionString);
    } finally {
      await db.close();
      await server.stop();
    }
  };

  it("never interleaves concurrent parameterised queries of different connections", async () => {
    await withEmbedded(20, async (db) => {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => db.query<{ v: number }>("SELECT $1::int * 2 AS v", [i])),
      );
      expect(results.map((r) => r.rows[0]?.v)).toEqual(Array.from({ length: 200 }, (_, i) => i * 2));
    });
  });

  it("keeps a transaction's statements together and rolls back on failure", async () => {
    await withEmbedded(10, async (db) => {
      await db.query("CREATE TABLE counter (id int PRIMARY KEY, v int NOT NULL)");
      await db.query("INSERT INTO counter VALUES (1, 0)");
      await Promise.all(
        Array.from({ length: 30 }, () =>
          db.tx(async (c) => {
            const r = await c.query<{ v: number }>("SELECT v FROM counter WHERE id = 1");
            await new Promise((resolve) => setTimeout(resolve, 1));
            await c.query("UPDATE counter SET v = $1 WHERE id = 1", [(r.rows[0]?.v ?? 0) + 1]);
          }),
        ),
      );
      await expect(
        db.tx(async (c) => {
          await c.query("UPDATE counter SET v = 1000 WHERE id = 1");
          throw new Error("abort");
        }),
      ).rejects.toThrow("abort");
      const final = await db.query<{ v: number }>("SELECT v FROM counter");
      expect(final.rows[0]?.v).toBe(30);
    });
  });

  it("rolls back the open transaction of a client that disconnects", async () => {
    await withEmbedded(10, async (db, connectionString) => {
      await db.query("CREATE TABLE t (v int)");
      const client = new pg.Client({ connectionString });
      await client.connect();
      await client.query("BEGIN");
      await client.query("INSERT INTO t VALUES (1)");
      await client.end();
      const rows = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM t");
      expect(rows.rows[0]?.n).toBe(0);
    });
  });

  it("keeps data across restarts, and a second process joins through the socket", async () => {
    const dataDir = freshDir();
    const first = await openDatabase({ databaseUrl: undefined, dataDir });
    expect(first.mode).toBe("embedded");
    await migrate(first.db);
    await first.db.query("INSERT INTO counters (name, value) VALUES ('probe', 41)");
    const joined = await openDatabase({ databaseUrl: undefined, dataDir });
    expect(joined.mode).toBe("embedded-shared");
    const seen = await joined.db.query<{ value: string }>("SELECT value FROM counters WHERE name = 'probe'");
    expect(seen.rows[0]?.value).toBe("41");
    await joined.db.close();
    await first.db.close();

    const again = await openDatabase({ databaseUrl: undefined, dataDir });
    expect(again.mode).toBe("embedded");
    const kept = await again.db.query<{ value: string }>("SELECT value FROM counters WHERE name = 'probe'");
    expect(kept.rows[0]?.value).toBe("41");
    // Migrations ran once: a second run applies nothing.
    expect((await migrate(again.db)).applied).toEqual([]);
    await again.db.close();
  });

  it("applies migrations once when two processes start together", async () => {
    const dataDir = freshDir();
    const a = await openDatabase({ databaseUrl: undefined, dataDir });
    const b = await openDatabase({ databaseUrl: undefined, dataDir });
    const [ra, rb] = await Promise.all([migrate(a.db), migrate(b.db)]);
    expect(ra.applied.length + rb.applied.length).toBeGreaterThan(0);
    expect(new Set([...ra.applied, ...rb.applied]).size).toBe(ra.applied.length + rb.applied.length);
    await b.db.close();
    await a.db.close();
  });
});
