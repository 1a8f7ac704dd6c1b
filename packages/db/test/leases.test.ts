import { silentLogger } from "@mp/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertLeader,
  createLeaseKeeper,
  type Database,
  LeadershipLostError,
  type LeaseKeeper,
  renewLeases,
  tryAcquireLease,
} from "../src/index.ts";
import { createTestDatabase, type TestDatabase } from "../src/testing.ts";

const onServer = process.env.DATABASE_URL !== undefined;

/** Polls `check` until it holds, or fails after `timeoutMs`; returns the milliseconds it took. */
async function within(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Leases (migrations/0080-0082) and the one guard every write under a lease runs. */
describe("leases", () => {
  let testDb: TestDatabase;
  let db: Database;
  const keepers: LeaseKeeper[] = [];
  const keeper = (role: string, seconds = 10) => {
    const k = createLeaseKeeper({ db, role, seconds, logger: silentLogger() });
    keepers.push(k);
    return k;
  };

  /** How many of `names` the keeper holds, by the database. */
  const heldBy = async (k: LeaseKeeper, names: string[]): Promise<number> => {
    const { rows } = await db.query<{ n: string }>(
      "SELECT count(*) AS n FROM leases WHERE holder = $1 AND name = ANY($2) AND expires_at > clock_timestamp()",
      [k.holder, names],
    );
    return Number(rows[0]?.n);
  };

  /**
   * A holder's liveness lock (migrations/0082) on a connection of its own, as a keeper takes it;
   * die() closes that connection as a killed process's socket closes.
   */
  const liveHolder = async (id: string) => {
    const client = await db.pool.connect();
    await client.query("SELECT pg_try_advisory_lock(7245022, hashtext($1))", [id]);
    return { id, die: () => client.release(true) };
  };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = testDb.db;
    await db.query("CREATE TABLE fenced_writes (v int NOT NULL)");
  });
  afterAll(async () => {
    for (const k of keepers) await k.stop();
    await testDb?.drop();
  });

  it("fences a deposed leader: its write transaction throws LeadershipLostError and writes nothing", async () => {
    const holders = [await liveHolder("host-a:1:aa"), await liveHolder("host-b:2:bb")];
    const first = await tryAcquireLease(db, { name: "fence:a", holder: "host-a:1:aa", seconds: 10 });
    expect(first).toMatchObject({ name: "fence:a", holder: "host-a:1:aa", epoch: 1n });
    if (!first) throw new Error("unreachable");
    // Unexpired and held: nobody else takes it.
    expect(await tryAcquireLease(db, { name: "fence:a", holder: "host-b:2:bb", seconds: 10 })).toBeNull();
    await db.tx(async (q) => {
      await assertLeader(q, first);
      await q.query("INSERT INTO fenced_writes (v) VALUES (1)");
    });

    // The leader hangs past its bound (its expiry, by the database's clock, has passed): a standby takes over.
    await db.query("UPDATE leases SET expires_at = clock_timestamp() - interval '1 second' WHERE name = 'fence:a'");
    const second = await tryAcquireLease(db, { name: "fence:a", holder: "host-b:2:bb", seconds: 10 });
    expect(second).toMatchObject({ holder: "host-b:2:bb", epoch: 2n });

    // The old leader wakes up and writes: refused in the transaction, rolled back whole.
    const write = db.tx(async (q) => {
      await assertLeader(q, first);
      await q.query("INSERT INTO fenced_writes (v) VALUES (2)");
    });
    await expect(write).rejects.toBeInstanceOf(LeadershipLostError);
    await expect(write).rejects.toMatchObject({ code: "leadership_lost" });
    // Its renewal says so too; the new leader's succeeds.
    expect(await renewLeases(db, [first], 10)).toEqual(new Set());
    if (!second) throw new Error("unreachable");
    expect(await renewLeases(db, [second], 10)).toEqual(new Set(["fence:a"]));
    // Even coming back to a lease it let expire, a holder starts a new epoch: old work stays refused.
    await db.query("UPDATE leases SET expires_at = clock_timestamp() WHERE name = 'fence:a'");
    const back = await tryAcquireLease(db, { name: "fence:a", holder: "host-a:1:aa", seconds: 10 });
    expect(back?.epoch).toBe(3n);
    await expect(db.tx((q) => assertLeader(q, first))).rejects.toBeInstanceOf(LeadershipLostError);

    expect((await db.query("SELECT v FROM fenced_writes ORDER BY v")).rows).toEqual([{ v: 1 }]);
    for (const h of holders) h.die();
  });

  it("refuses a write once the lease expired by the database's clock, even with nobody taking it over", async () => {
    const lease = await tryAcquireLease(db, { name: "fence:b", holder: "host-a:1:aa", seconds: 1 });
    if (!lease) throw new Error("not acquired");
    await db.query("UPDATE leases SET expires_at = clock_timestamp() WHERE name = 'fence:b'");
    await expect(db.tx((q) => assertLeader(q, lease))).rejects.toBeInstanceOf(LeadershipLostError);
  });

  it("spreads the resources of a role over its live keepers, and hands them back when one stops", async () => {
    const names = ["spread:1", "spread:2", "spread:3", "spread:4", "spread:5"];
    const a = keeper("spread");
    for (const name of names) a.want(name);
    for (const name of names) await a.acquire(name);
    await within("the first keeper holds everything", 5_000, async () => (await heldBy(a, names)) === 5);

    const b = keeper("spread");
    for (const name of names) b.want(name);
    await b.acquire("spread:1");
    // Shares differ by one at most: 3 and 2 (either way round: counts seen a poll late may overshoot once).
    await within("the second keeper gets its share", 10_000, async () => {
      const shares = [await heldBy(a, names), await heldBy(b, names)].sort();
      return shares[0] === 2 && shares[1] === 3;
    });

    // A third wanting one name only gets it (the larger share hands it over).
    const c = keeper("spread");
    await c.acquire("spread:5");
    await within("a pinned keeper gets its one resource", 10_000, async () => (await heldBy(c, names)) === 1);

    await a.stop();
    await within("the others take the stopped keeper's share", 5_000, async () => {
      return (await heldBy(b, names)) + (await heldBy(c, names)) === 5;
    });
    await b.stop();
    await c.stop();
  });

  it.skipIf(!onServer)(
    "takes over at once from a holder whose session died (kill -9), without waiting for expiry",
    async () => {
      const a = await liveHolder("host-a:3:cc");
      expect(await tryAcquireLease(db, { name: "kill:x", holder: a.id, seconds: 30 })).toMatchObject({ epoch: 1n });
      const b = keeper("kill", 30);
      expect(await b.acquire("kill:x")).toBeNull();
      // The holder's process dies: its socket closes, the server ends its session and the lock with it.
      a.die();
      // Well before the 30 s lease could expire (under 1 s on a quiet machine; a loaded one is slower).
      await within("the standby takes over", 20_000, async () => (await b.acquire("kill:x")) !== null);
      expect(await b.acquire("kill:x")).toMatchObject({ epoch: 2n });
    },
  );
});
