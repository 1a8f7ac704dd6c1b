import type { Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientSocket, createQueryBatcher } from "../src/batched-queries.ts";
import { createTestDatabase, type TestDatabase } from "../src/testing.ts";

// The batcher holds a batch to one socket write by corking pg's private `client.connection.stream`.
// Nothing else notices if a pg upgrade renames it (the batch still runs, one write per query), so
// this file pins it.
describe("the pg internal the query batcher relies on", () => {
  let testDb: TestDatabase;
  let pool: pg.Pool;
  beforeAll(async () => {
    testDb = await createTestDatabase({ migrate: false });
    // One connection, so the batcher gets the client whose socket the test watches.
    pool = new pg.Pool({ connectionString: testDb.connectionString, max: 1, pipeline: true });
  });
  afterAll(async () => {
    await pool.end();
    await testDb.drop();
  });

  it("a pooled client exposes its socket, which corks and uncorks", async () => {
    const client = await pool.connect();
    try {
      const socket = clientSocket(client);
      expect(typeof socket?.cork).toBe("function");
      expect(typeof socket?.uncork).toBe("function");
    } finally {
      client.release();
    }
  });

  it("sends the queries of one turn in one socket write", async () => {
    const client = await pool.connect();
    const socket = clientSocket(client) as Socket | undefined;
    client.release();
    expect(socket).toBeDefined();
    let writes = 0;
    const watched = socket as Socket & { _write: Socket["_write"]; _writev?: Socket["_writev"] };
    const write = watched._write.bind(watched);
    const writev = watched._writev?.bind(watched);
    watched._write = (...args) => {
      writes += 1;
      return write(...args);
    };
    if (writev) {
      watched._writev = (...args) => {
        writes += 1;
        return writev(...args);
      };
    }

    const query = createQueryBatcher(pool);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => query({ text: "SELECT $1::int AS i", values: [i] })),
    );
    expect(results.map((r) => r.rows[0]?.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(writes).toBe(1);
  });

  it("answers a named statement's rows as pg's own query does, first and later runs alike", async () => {
    // The batched query keeps a statement's type parsers and empty row from pg's Result (its
    // `_parsers` and `_prebuiltEmptyResultObject`, pg 8): a pg upgrade renaming them fails here.
    const statement = {
      name: "batched_row_shape",
      text: `SELECT $1::int AS n, NULL::text AS missing, true AS flag, '2026-11-30T01:02:03.456Z'::timestamptz AS at,
               ARRAY['a', 'b'] AS list, '{"k": 1}'::jsonb AS doc`,
    };
    // Once parsed on the connection with a known row, the statement is run without Describe.
    const client = await pool.connect();
    const connection = (client as unknown as { connection: { describe: (...args: unknown[]) => void } }).connection;
    client.release();
    let describes = 0;
    const describe = connection.describe.bind(connection);
    connection.describe = (...args) => {
      describes += 1;
      describe(...args);
    };
    const query = createQueryBatcher(pool);
    const expected = await pool.query({ text: statement.text, values: [7] });
    describes = 0;
    for (let run = 0; run < 3; run++) {
      const answers = await Promise.all([7, 7].map((n) => query({ ...statement, values: [n] })));
      for (const answer of answers) {
        expect(answer.rows).toEqual(expected.rows);
        expect(answer.rows[0]?.at).toBeInstanceOf(Date);
        expect(Object.keys(answer.rows[0] ?? {})).toEqual(["n", "missing", "flag", "at", "list", "doc"]);
        expect(answer.fields.map((f) => f.name)).toEqual(expected.fields.map((f) => f.name));
        expect(answer.rowCount).toBe(1);
        const internals = answer as unknown as { _parsers?: unknown; _prebuiltEmptyResultObject?: unknown };
        expect(Array.isArray(internals._parsers)).toBe(true);
        expect(typeof internals._prebuiltEmptyResultObject).toBe("object");
      }
    }
    // The first batch parses and describes the statement (both its queries: the second is sent
    // before the first's description has come back); the two later batches describe nothing.
    expect(describes).toBe(2);
  });

  it("answers each query of a batch with its own error or rows, and the connection serves the next batch", async () => {
    const query = createQueryBatcher(pool);
    const answers = await Promise.allSettled([
      query({ name: "batched_ok", text: "SELECT $1::int AS i", values: [1] }),
      query({ text: "SELECT 1/0 AS broken" }),
      query({ name: "batched_ok", text: "SELECT $1::int AS i", values: [3] }),
    ]);
    expect(answers.map((a) => a.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(answers[1]?.status === "rejected" && (answers[1].reason as { code?: string }).code).toBe("22012");
    // Refused at Bind, run without Describe (parsed and described above): its own error, then on.
    const refused = await Promise.allSettled([
      query({ name: "batched_ok", text: "SELECT $1::int AS i", values: ["not a number"] }),
      query({ name: "batched_ok", text: "SELECT $1::int AS i", values: [5] }),
    ]);
    expect(refused[0]?.status === "rejected" && (refused[0].reason as { code?: string }).code).toBe("22P02");
    expect(refused[1]?.status === "fulfilled" && refused[1].value.rows).toEqual([{ i: 5 }]);
    const next = await query({ name: "batched_ok", text: "SELECT $1::int AS i", values: [4] });
    expect(next.rows).toEqual([{ i: 4 }]);
  });

  it("keeps a statement's row per connection: two databases, one statement name, two shapes", async () => {
    const other = await createTestDatabase({ migrate: false });
    const otherPool = new pg.Pool({ connectionString: other.connectionString, max: 1, pipeline: true });
    try {
      await pool.query("CREATE TABLE shape_probe (a int)");
      await otherPool.query("CREATE TABLE shape_probe (a int, b text)");
      await pool.query("INSERT INTO shape_probe VALUES (1)");
      await otherPool.query("INSERT INTO shape_probe VALUES (2, 'two')");
      const statement = { name: "batched_shape_probe", text: "SELECT * FROM shape_probe" };
      const here = createQueryBatcher(pool);
      const there = createQueryBatcher(otherPool);
      // Alternating, so each connection runs the statement again after the other described its own row.
      for (let run = 0; run < 3; run++) {
        expect((await here(statement)).rows).toEqual([{ a: 1 }]);
        expect((await there(statement)).rows).toEqual([{ a: 2, b: "two" }]);
      }
    } finally {
      await otherPool.end();
      await other.drop();
    }
  });
});
