import { join } from "node:path";
import { silentLogger } from "@mp/core";
import { createDatabase, createLeaseKeeper } from "@mp/db";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";
import { waitFor } from "./indexer-fixtures.ts";

/**
 * A leader cut off from the database (its network drops) must stop using its lease before the
 * database would let a standby take it (issue 19): it cannot renew, so it stops counting the lease
 * as held within the bound less a margin, while the database still shows it held.
 */
describe("a lease holder that cannot reach the database", () => {
  let testDb: TestDatabase;
  let proxy: TcpProxy;
  let proxiedUrl: string;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    const url = new URL(testDb.connectionString);
    const socketDir = url.searchParams.get("host");
    // The embedded database listens on a Unix socket in its directory; a server on TCP.
    proxy = await startTcpProxy(
      socketDir ? { path: join(socketDir, ".s.PGSQL.5432") } : { host: url.hostname, port: Number(url.port || 5432) },
    );
    const proxied = new URL(testDb.connectionString);
    proxied.search = "";
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    proxiedUrl = proxied.toString();
  });
  afterAll(async () => {
    await proxy?.close();
    await testDb?.drop();
  });

  it("stops counting its lease before the database's expiry, then leads again under a new epoch once back", async () => {
    const seconds = 3;
    const via = createDatabase({ connectionString: proxiedUrl, engine: testDb.db.engine, max: 2 });
    const keeper = createLeaseKeeper({ db: via, role: "outage", seconds, logger: silentLogger() });
    try {
      expect(await keeper.acquire("outage:x")).toMatchObject({ epoch: 1n });
      await proxy.down();
      const cutAt = performance.now();
      await waitFor(
        "the holder stops counting its lease",
        async () => (await keeper.acquire("outage:x")) === null,
        10_000,
      );
      const ms = performance.now() - cutAt;
      // The database, reached directly, still shows the lease held: the holder stopped first.
      const { rows } = await testDb.db.query<{ held: boolean }>(
        "SELECT expires_at > clock_timestamp() AS held FROM leases WHERE name = 'outage:x'",
      );
      expect(rows[0]?.held).toBe(true);
      expect(ms).toBeLessThan(seconds * 1_000);

      // Back on the network: a new session, the old lease given up, the holder leads again at epoch 2.
      await proxy.up();
      const back = await waitFor("leading again", async () => (await keeper.acquire("outage:x")) ?? undefined, 10_000);
      expect(back.epoch).toBe(2n);
    } finally {
      await keeper.stop();
      await via.close();
    }
  });
});
