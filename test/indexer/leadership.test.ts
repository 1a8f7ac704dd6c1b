import type { Database } from "@mp/db";
import { tryAcquireLease } from "@mp/db";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import type { Indexer } from "@mp/indexer";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  addWallet,
  catchUp,
  createMerchant,
  depositsOf,
  entriesFor,
  expectLedgerOk,
  newIndexer,
  waitFor,
} from "./indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain, type TestChain } from "./test-chains.ts";

/**
 * Fencing at the indexer's level (issue 19): a leader deposed between its scan and its write
 * writes nothing, and the next leader indexes the same blocks once. The process-level faults
 * (kill -9, SIGSTOP) are test/cli/failover.test.ts.
 */
describe("indexer leadership", () => {
  let testDb: TestDatabase;
  let db: Database;
  let chain: TestChain;
  const running: Indexer[] = [];
  const track = (indexer: Indexer): Indexer => {
    running.push(indexer);
    return indexer;
  };

  beforeAll(async () => {
    [testDb, chain] = await Promise.all([createTestDatabase(), startEvmChain()]);
    db = testDb.db;
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((indexer) => indexer.stop()));
    await expectLedgerOk(db);
  });
  afterAll(async () => {
    await chain?.close();
    await testDb?.drop();
  });

  const cursor = async () =>
    (await db.query("SELECT indexed_height FROM chain_cursors WHERE chain = $1", [chain.chain])).rows[0]
      ?.indexed_height as string | null;

  it("a leader deposed between its scan and its write writes nothing; the new leader records the deposit once", async () => {
    const merchant = await createMerchant(db);
    const address = chain.address();
    await addWallet(db, merchant, chain.chain, address);
    const name = `indexer:${chain.chain}`;
    // Another process (its liveness lock on a connection of its own) takes the chain over while
    // the leader is between scan and write: a hang past the bound, then a standby's takeover.
    const other = await db.pool.connect();
    const otherId = "other-host:4242:feed";
    await other.query("SELECT pg_try_advisory_lock(7245022, hashtext($1))", [otherId]);
    let depose = false;
    const leader = track(
      newIndexer(db, chain, {
        failpoint: async (point) => {
          if (point !== "before-record" || !depose) return;
          depose = false;
          await db.query("UPDATE leases SET expires_at = clock_timestamp() WHERE name = $1", [name]);
          expect(await tryAcquireLease(db, { name, holder: otherId, seconds: 10 })).not.toBeNull();
        },
      }),
    );
    await catchUp(leader);
    const heightBefore = await cursor();

    const txHash = await chain.pay(address, chain.amount(7));
    depose = true;
    // The scan saw the deposit; the write's guard refuses it: the iteration ends as a standby's.
    expect(await leader.tick()).toMatchObject({ active: false });
    expect(await depositsOf(db, merchant.merchantId)).toEqual([]);
    expect(await cursor()).toBe(heightBefore);
    // And it stays a standby while the other process leads.
    expect(await leader.tick()).toMatchObject({ active: false });

    // The other process goes away (its session ends): a new leader indexes the deposit once.
    await other.query("SELECT pg_advisory_unlock(7245022, hashtext($1))", [otherId]);
    other.release(true);
    const next = track(newIndexer(db, chain));
    await waitFor("a new leader", async () => (await next.tick()).active);
    await chain.mine(CONFIRMATIONS);
    await catchUp(next);
    const [deposit, ...more] = await depositsOf(db, merchant.merchantId);
    expect(more).toEqual([]);
    expect(deposit).toMatchObject({ tx_hash: txHash, status: "CONFIRMED" });
    expect((await entriesFor(db, deposit?.id ?? "")).map((e) => e.kind)).toEqual(["deposit_credit"]);
    const { rows } = await db.query<{ epoch: string }>("SELECT epoch FROM leases WHERE name = $1", [name]);
    expect(Number(rows[0]?.epoch)).toBeGreaterThanOrEqual(3);
  });
});
