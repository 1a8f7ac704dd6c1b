import { hostname } from "node:os";
import { getIndexerStates } from "@mp/indexer";
import { afterEach, describe, expect, it } from "vitest";
import { depositsOf, entriesFor } from "../indexer/indexer-fixtures.ts";
import { type IndexerCluster, measureUntil, startIndexerCluster } from "../support/indexer-cluster.ts";
import { runCli } from "./run-cli.ts";

const onServer = process.env.DATABASE_URL !== undefined;
/** The bound of these tests (INDEXER_LEASE_SECONDS): short, so a hang is tested in seconds. */
const LEASE_SECONDS = 3;
const TIMEOUT_MS = 180_000;
/** The `--role all` test's bound: long, so only a kill (not a lease's expiry) explains a fast takeover. */
const ALL_LEASE_SECONDS = 20;

/**
 * A killed leader's session dies with it, and its lease lock with the session: a standby takes over
 * without waiting for the lease to expire. That is what is tested (sooner than the lease's seconds);
 * how soon (within 1 s on a quiet machine) is measured by `pnpm bench failover`, not by a test that
 * a loaded machine would fail.
 */
function expectBeforeExpiry(ms: number): void {
  expect(ms, `taken over after ${ms} ms; the lease is ${LEASE_SECONDS} s`).toBeLessThan(LEASE_SECONDS * 1_000);
}

/**
 * Indexer processes on several "hosts" (real `payments serve --role indexer` processes) against one
 * PostgreSQL database, under the faults of issue 19. The embedded database is single-host (one
 * process owns it; the others join through its socket and share its one session), so there is
 * nothing to fail over to: these run on PostgreSQL only.
 */
describe.skipIf(!onServer)(
  "indexer failover between processes (PostgreSQL only: the embedded database is single-host)",
  () => {
    let cluster: IndexerCluster | undefined;
    afterEach(async () => {
      await cluster?.close();
      cluster = undefined;
    });

    /** The one deposit of the cluster's address on BASE is CONFIRMED with one credit; the ledger checks clean. */
    const expectConfirmedOnce = async (c: IndexerCluster, txHash: string) => {
      const deposits = await measureUntil("the deposit confirms", 60_000, async () => {
        const rows = await depositsOf(c.db, c.merchant.merchantId);
        return rows.some((d) => d.tx_hash === txHash && d.status === "CONFIRMED");
      }).then(() => depositsOf(c.db, c.merchant.merchantId));
      expect(deposits.filter((d) => d.tx_hash === txHash && d.status !== "REVERSED")).toHaveLength(1);
      const deposit = deposits.find((d) => d.tx_hash === txHash && d.status === "CONFIRMED");
      expect((await entriesFor(c.db, deposit?.id ?? "")).map((e) => e.kind)).toEqual(["deposit_credit"]);
      const check = await runCli(["ledger", "check"], c.env);
      expect(check.code, check.stderr).toBe(0);
    };

    /** A cluster indexing BASE: process a leads it, process b stands by. */
    const leaderAndStandby = async () => {
      const c = await startIndexerCluster({ chains: ["BASE"], leaseSeconds: LEASE_SECONDS });
      cluster = c;
      const a = await c.spawn();
      await measureUntil("the first process leads", 30_000, async () => (await c.leader("BASE"))?.pid === a.pid);
      return { c, a, b: await c.spawn() };
    };

    it(
      "kill -9 of the leader: a standby leads before the lease could expire, and a deposit sent at the kill confirms once",
      async () => {
        const { c, a, b } = await leaderAndStandby();

        const txHash = await c.pay(12_345_678n);
        a.child.kill("SIGKILL");
        const takeoverMs = await measureUntil(
          "the standby leads",
          10_000,
          async () => (await c.leader("BASE"))?.pid === b.pid,
        );
        expectBeforeExpiry(takeoverMs);
        await c.anvil.mine(3);
        await expectConfirmedOnce(c, txHash);
      },
      TIMEOUT_MS,
    );

    it(
      "SIGSTOP of the leader for twice the bound: a standby leads once the lease expires, before the leader resumes; resumed, the old leader writes nothing",
      async () => {
        const { c, a, b } = await leaderAndStandby();
        const before = await c.leader("BASE");

        a.child.kill("SIGSTOP");
        const stoppedAt = performance.now();
        const txHash = await c.pay(23_456_789n);
        const takeoverMs = await measureUntil(
          "the standby leads",
          (LEASE_SECONDS + 5) * 1_000,
          async () => (await c.leader("BASE"))?.pid === b.pid,
        );
        // Within the bound + 1 s on a quiet machine (`pnpm bench failover`); here: before the leader wakes.
        expect(takeoverMs).toBeLessThan(2 * LEASE_SECONDS * 1_000);
        const after = await c.leader("BASE");
        expect(after?.epoch).toBeGreaterThan(before?.epoch ?? 0);
        await c.anvil.mine(3);
        await expectConfirmedOnce(c, txHash);

        await new Promise((r) =>
          setTimeout(r, Math.max(0, 2 * LEASE_SECONDS * 1_000 - (performance.now() - stoppedAt))),
        );
        const resumedFrom = a.output().length;
        a.child.kill("SIGCONT");
        // Awake, it learns it lost the chain: it says so and stands by.
        await measureUntil("the resumed process says it lost the chain", 10_000, async () =>
          /"msg":"(lease lost|lease not renewed in time|lost the chain|no longer leading the chain)[^"]*"/.test(
            a.output().slice(resumedFrom),
          ),
        );
        // More blocks and a new deposit while it is awake: still led by b, at the same epoch.
        const second = await c.pay(34_567_890n);
        await c.anvil.mine(3);
        await expectConfirmedOnce(c, second);
        expect(await c.leader("BASE")).toEqual(after);
        const resumed = a.output().slice(resumedFrom);
        // It wrote nothing: no deposit seen, confirmed or rolled back by it, no iteration led.
        expect(resumed).not.toMatch(
          /"msg":"(deposits seen|deposits confirmed|chain reorganisation rolled back|leading the chain)"/,
        );
        expect(
          (await depositsOf(c.db, c.merchant.merchantId)).filter((d) => [txHash, second].includes(d.tx_hash)),
        ).toHaveLength(2);
      },
      TIMEOUT_MS,
    );

    it(
      "--role all: kill -9 of the process leading a chain; a standby started just before leads its indexer, sends and sweeps within seconds",
      async () => {
        // A sweeper's first pass comes this long after a start: a standby that took its leases only
        // there (each loop keeping its own keeper) would leave the chain's sweeps unled meanwhile.
        const c = await startIndexerCluster({
          chains: ["BASE"],
          leaseSeconds: ALL_LEASE_SECONDS,
          env: { SWEEP_INTERVAL_SECONDS: "600" },
        });
        cluster = c;
        const leases = ["indexer:BASE", "sender:BASE", "sweeper:BASE"];
        const holders = async () => Promise.all(leases.map(async (name) => (await c.holder(name))?.pid));
        const a = await c.spawn([], "all");
        await measureUntil("the first process leads every lease of the chain", 60_000, async () =>
          (await holders()).every((pid) => pid === a.pid),
        );
        const b = await c.spawn([], "all");
        const leader = (await c.leader("BASE"))?.pid === b.pid ? b : a;
        const standby = leader === a ? b : a;

        leader.child.kill("SIGKILL");
        const takeoverMs = await measureUntil("the standby leads every lease of the chain", 60_000, async () =>
          (await holders()).every((pid) => pid === standby.pid),
        );
        // The keeper's poll (~250 ms) and the server noticing the kill (`pnpm bench failover --role all`
        // measures it): here only well before the 20 s lease could expire and the 600 s sweep interval.
        expect(takeoverMs).toBeLessThan((ALL_LEASE_SECONDS / 2) * 1_000);
      },
      TIMEOUT_MS,
    );

    it(
      "spreads the chains over the processes (--chains still pins), shows who indexes each, and hands a killed one's chains over before their leases could expire",
      async () => {
        const chains = ["BASE", "ARBITRUM", "OPTIMISM", "POLYGON"];
        const c = await startIndexerCluster({ chains, leaseSeconds: LEASE_SECONDS });
        cluster = c;
        const leaders = async () => Promise.all(chains.map(async (chain) => (await c.leader(chain))?.pid));
        const count = (pids: Array<number | undefined>, pid: number) => pids.filter((p) => p === pid).length;
        const a = await c.spawn();
        await measureUntil("one process leads every chain", 30_000, async () => count(await leaders(), a.pid) === 4);
        const b = await c.spawn();
        await measureUntil("two processes share the chains 2 and 2", 30_000, async () => {
          const pids = await leaders();
          return count(pids, a.pid) === 2 && count(pids, b.pid) === 2;
        });
        // A process pinned to one chain gets it (whoever held it hands it over); the others share the rest.
        const pinned = await c.spawn(["--chains", "POLYGON"]);
        await measureUntil("the pinned process leads its chain", 30_000, async () => {
          const pids = await leaders();
          return pids[3] === pinned.pid && count(pids, a.pid) + count(pids, b.pid) === 3;
        });
        const states = await getIndexerStates(c.db);
        for (const chain of chains) {
          const leader = await c.leader(chain);
          expect(states.find((s) => s.chain === chain)?.leader).toMatchObject({
            host: hostname(),
            pid: leader?.pid,
            since: expect.any(Date),
          });
        }

        // The pinned one is killed: its chain goes to one of the others at once.
        pinned.child.kill("SIGKILL");
        const ms = await measureUntil("POLYGON led again", 10_000, async () => {
          const pid = (await c.leader("POLYGON"))?.pid;
          return pid === a.pid || pid === b.pid;
        });
        expectBeforeExpiry(ms);
        // Then a: b leads all four at once.
        a.child.kill("SIGKILL");
        const all = await measureUntil(
          "the survivor leads every chain",
          10_000,
          async () => count(await leaders(), b.pid) === 4,
        );
        expectBeforeExpiry(all);
      },
      TIMEOUT_MS,
    );
  },
);
