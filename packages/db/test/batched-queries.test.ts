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
});
