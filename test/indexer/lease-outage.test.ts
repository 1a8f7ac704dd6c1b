import { silentLogger } from "@mp/core";
import { createDatabase, createLeaseKeeper } from "@mp/db";
import { describe, expect, it } from "vitest";
import { connectionTarget, startTcpProxy, viaProxy } from "../support/tcp-proxy.ts";
import { useTestDatabase } from "../support/test-database.ts";
import { useStarted } from "../support/use-started.ts";
import { waitFor } from "./indexer-fixtures.ts";

/**
 * A leader cut off from the database (its network drops) must stop using its lease before the
 * database would let a standby take it (issue 19): it cannot renew, so it stops counting the lease
 * as held within the bound less a margin, while the database still shows it held.
 */
describe("a lease holder that cannot reach the database", () => {
  const testDb = useTestDatabase();
  /** A proxy in front of the test database, which the test can cut. */
  const proxy = useStarted(
    "the proxy",
    () => startTcpProxy(connectionTarget(testDb.connectionString)),
    (started) => started.close(),
  );

  it("stops counting its lease before the database's expiry, then leads again under a new epoch once back", async () => {
    const seconds = 3;
    const via = createDatabase({
      connectionString: viaProxy(testDb.connectionString, proxy.port),
      engine: testDb.db.engine,
      max: 2,
    });
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
