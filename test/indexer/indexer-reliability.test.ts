import { tryAcquireLease } from "@mp/db";
import { createIndexerMetrics, getIndexerStates, liveConfirmations } from "@mp/indexer";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  addWallet,
  availableOf,
  catchUp,
  createMerchant,
  depositsOf,
  entriesFor,
  expectedFee,
  laggingAdapter,
  useIndexerSuite,
  waitFor,
} from "./indexer-fixtures.ts";
import { CONFIRMATIONS, TEST_CHAINS } from "./test-chains.ts";

/**
 * The indexer's reliability, the same cases on every chain family: real PostgreSQL (or PGlite),
 * real nodes (anvil) or RPC-faithful test nodes, real adapters.
 */
describe.each(TEST_CHAINS)("indexer on $name", ({ start }) => {
  const { db, chain, startIndexer } = useIndexerSuite(start);

  /** A merchant with one destination on the chain. */
  async function merchantWithAddress(fees?: { feeBps?: number; feeFixedMicros?: bigint }) {
    const merchant = await createMerchant(db, fees);
    const address = chain.address();
    const wallet = await addWallet(db, merchant, chain.chain, address);
    return { merchant, address, ...wallet };
  }

  it("records a deposit PENDING with live confirmations, then confirms and credits it exactly once", async () => {
    const { merchant, address, walletId } = await merchantWithAddress({ feeBps: 150, feeFixedMicros: 25_000n });
    const indexer = startIndexer();
    await catchUp(indexer);
    const amount = chain.amount(3);
    const txHash = await chain.pay(address, amount);

    let result = await catchUp(indexer);
    expect(result.depositsSeen).toBe(1);
    let [deposit, ...others] = await depositsOf(db, merchant.merchantId);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({
      tx_hash: txHash,
      to_address: address,
      wallet_id: walletId,
      customer_id: merchant.customerId,
      asset: chain.asset,
      status: "PENDING",
      amount_raw: amount.toString(),
      required_confirmations: CONFIRMATIONS,
      credit_entry_id: null,
    });
    if (!deposit) throw new Error("no deposit");
    const blockHeight = Number(deposit.block_height);
    const confirmationsAt = (head: number | null) =>
      liveConfirmations({ status: "PENDING", blockHeight, requiredConfirmations: CONFIRMATIONS }, head);
    const [state] = (await getIndexerStates(db)).filter((s) => s.chain === chain.chain);
    expect(state).toMatchObject({ headHeight: result.head, indexedHeight: result.head, lag: 0 });
    expect(confirmationsAt(state?.headHeight ?? null)).toBe(1);
    expect(await entriesFor(db, deposit.id)).toEqual([]);

    await chain.mine(1);
    result = await catchUp(indexer);
    expect(confirmationsAt(result.head)).toBe(2);
    expect((await depositsOf(db, merchant.merchantId))[0]?.status).toBe("PENDING");
    expect(await availableOf(db, merchant.merchantId)).toBe(0n);

    await chain.mine(1);
    result = await catchUp(indexer);
    expect(result.depositsConfirmed).toBe(1);
    expect(confirmationsAt(result.head)).toBe(3);
    [deposit, ...others] = await depositsOf(db, merchant.merchantId);
    const gross = chain.usdMicros(amount);
    const fee = expectedFee(merchant, gross);
    expect(deposit).toMatchObject({
      status: "CONFIRMED",
      amount_usd_micros: gross.toString(),
      fee_usd_micros: fee.toString(),
      net_amount_usd_micros: (gross - fee).toString(),
    });
    expect(deposit?.usd_rate).not.toBeNull();
    expect(deposit?.usd_rate_at).toBeInstanceOf(Date);
    expect(deposit?.confirmed_at).toBeInstanceOf(Date);
    const entries = await entriesFor(db, deposit?.id ?? "");
    expect(entries).toEqual([{ id: deposit?.credit_entry_id, kind: "deposit_credit" }]);
    expect(await availableOf(db, merchant.merchantId)).toBe(gross - fee);

    // More blocks and iterations change nothing.
    await chain.mine(2);
    await catchUp(indexer);
    expect(await entriesFor(db, deposit?.id ?? "")).toHaveLength(1);
    expect(await availableOf(db, merchant.merchantId)).toBe(gross - fee);
  });

  it("ignores transfers to addresses that are not watched", async () => {
    const { merchant, address } = await merchantWithAddress();
    const stranger = chain.address();
    const indexer = startIndexer();
    await chain.pay(stranger, chain.amount(5));
    const watchedTx = await chain.pay(address, chain.amount(6));
    await catchUp(indexer);
    const { rows } = await db.query("SELECT tx_hash FROM deposits WHERE to_address = $1", [stranger]);
    expect(rows).toEqual([]);
    expect((await depositsOf(db, merchant.merchantId)).map((d) => d.tx_hash)).toEqual([watchedTx]);
  });

  it("sees a wallet created while it runs, without a restart", async () => {
    const indexer = startIndexer();
    const loop = indexer.start();
    await waitFor("caught up", async () => {
      const [state] = (await getIndexerStates(db)).filter((s) => s.chain === chain.chain);
      return state?.lag === 0 && state.indexedHeight === (await chain.head());
    });
    const { merchant, address } = await merchantWithAddress();
    const txHash = await chain.pay(address, chain.amount(7));
    await waitFor("deposit seen", async () => (await depositsOf(db, merchant.merchantId))[0]);
    await chain.mine(CONFIRMATIONS - 1);
    const deposit = await waitFor("deposit confirmed", async () =>
      (await depositsOf(db, merchant.merchantId)).find((d) => d.status === "CONFIRMED"),
    );
    expect(deposit.tx_hash).toBe(txHash);
    await indexer.stop();
    await loop;
  });

  it("reverses deposits whose blocks leave the chain before confirmation; a re-mined one is a new deposit, credited once", async () => {
    const { merchant, address } = await merchantWithAddress();
    const indexer = startIndexer();
    const kept = await chain.pay(address, chain.amount(11));
    const dropped = await chain.pay(address, chain.amount(12));
    await catchUp(indexer);
    const before = await depositsOf(db, merchant.merchantId);
    expect(before.map((d) => [d.tx_hash, d.status])).toEqual([
      [kept, "PENDING"],
      [dropped, "PENDING"],
    ]);

    await chain.reorg(2, [kept]);
    await catchUp(indexer);
    const after = await depositsOf(db, merchant.merchantId);
    const reversed = after.filter((d) => d.status === "REVERSED");
    expect(reversed.map((d) => d.id).sort()).toEqual(before.map((d) => d.id).sort());
    for (const d of reversed) {
      expect(d.reversed_at).toBeInstanceOf(Date);
      expect(d.reversal_entry_id).toBeNull();
      expect(await entriesFor(db, d.id)).toEqual([]);
    }
    const live = after.filter((d) => d.status !== "REVERSED");
    expect(live.map((d) => [d.tx_hash, d.status])).toEqual([[kept, "PENDING"]]);

    await chain.mine(CONFIRMATIONS);
    await catchUp(indexer);
    const final = await depositsOf(db, merchant.merchantId);
    const confirmed = final.filter((d) => d.status === "CONFIRMED");
    expect(confirmed.map((d) => d.tx_hash)).toEqual([kept]);
    expect(final.filter((d) => d.status === "PENDING")).toEqual([]);
    expect(await entriesFor(db, confirmed[0]?.id ?? "")).toHaveLength(1);
    expect(await availableOf(db, merchant.merchantId)).toBe(BigInt(confirmed[0]?.net_amount_usd_micros ?? -1));
  });

  /**
   * Regression (indexer-property seed -1548536611, Solana): a payment dropped by a reorg, then the
   * same amount paid again to the same address. On the Solana test node both were once signed against
   * the same (finalized) blockhash and, the reorg having removed the token account, were
   * byte-identical: one signature for two payments, which the property counted twice. Each payment
   * is its own transaction.
   */
  it("the same payment again after a reorg dropped it is a second transaction, credited once", async () => {
    const { merchant, address } = await merchantWithAddress({ feeBps: 100, feeFixedMicros: 1_000n });
    const indexer = startIndexer();
    await catchUp(indexer);
    const amount = chain.amount(42);
    const dropped = await chain.pay(address, amount);
    await chain.reorg(1, []);
    expect(await chain.txHeight(dropped)).toBeNull();
    const again = await chain.pay(address, amount);
    expect(again).not.toBe(dropped);

    await chain.mine(CONFIRMATIONS);
    await catchUp(indexer);
    await catchUp(indexer);
    const deposits = await depositsOf(db, merchant.merchantId);
    expect(deposits.filter((d) => d.status === "CONFIRMED").map((d) => d.tx_hash)).toEqual([again]);
    const gross = chain.usdMicros(amount);
    expect(await availableOf(db, merchant.merchantId)).toBe(gross - expectedFee(merchant, gross));
  });

  it("reverses the credit of a confirmed deposit whose block leaves the chain", async () => {
    const { merchant, address } = await merchantWithAddress();
    const indexer = startIndexer();
    await chain.pay(address, chain.amount(13));
    await chain.mine(CONFIRMATIONS - 1);
    await catchUp(indexer);
    const [credited] = await depositsOf(db, merchant.merchantId);
    expect(credited?.status).toBe("CONFIRMED");
    expect(await availableOf(db, merchant.merchantId)).toBeGreaterThan(0n);

    await chain.reorg(CONFIRMATIONS, []);
    await catchUp(indexer);
    const [deposit, ...others] = await depositsOf(db, merchant.merchantId);
    expect(others).toEqual([]);
    expect(deposit).toMatchObject({ id: credited?.id, status: "REVERSED" });
    expect(deposit?.reversal_entry_id).not.toBeNull();
    expect((await entriesFor(db, credited?.id ?? "")).map((e) => e.kind).sort()).toEqual([
      "deposit_credit",
      "deposit_reversal",
    ]);
    expect(await availableOf(db, merchant.merchantId)).toBe(0n);
  });

  it("waits while a lagging node answers a head below the indexed tip: nothing reversed, nothing credited again", async () => {
    const { merchant, address } = await merchantWithAddress();
    const lag = { blocks: 0 };
    const metrics = createIndexerMetrics(new Registry());
    const reorgs = async () => (await metrics.reorgs.get()).values.find((v) => v.labels.chain === chain.chain)?.value;
    const indexer = startIndexer({ metrics, adapter: laggingAdapter(chain.adapter(), lag) });
    await chain.pay(address, chain.amount(29));
    await chain.mine(CONFIRMATIONS - 1);
    const before = await catchUp(indexer);
    const [credited] = await depositsOf(db, merchant.merchantId);
    expect(credited?.status).toBe("CONFIRMED");
    const available = await availableOf(db, merchant.merchantId);
    expect(available).toBeGreaterThan(0n);

    // The pool's other backend is behind: the deposit's block is above the head it answers.
    lag.blocks = CONFIRMATIONS;
    for (let i = 0; i < 3; i++) {
      expect(await indexer.tick()).toMatchObject({
        active: true,
        head: (before.head ?? 0) - CONFIRMATIONS,
        indexedHeight: before.indexedHeight,
        scanned: null,
        reorgAncestor: null,
        depositsReversed: 0,
      });
    }
    const [state] = (await getIndexerStates(db)).filter((s) => s.chain === chain.chain);
    expect(state).toMatchObject({ headHeight: before.head, indexedHeight: before.indexedHeight });
    expect(await depositsOf(db, merchant.merchantId)).toEqual([credited]);
    expect(await entriesFor(db, credited?.id ?? "")).toHaveLength(1);
    expect(await availableOf(db, merchant.merchantId)).toBe(available);
    expect(await reorgs()).toBeUndefined();

    // Back on a node that is up to date: indexing goes on from where it was.
    lag.blocks = 0;
    await chain.mine(1);
    const after = await catchUp(indexer);
    expect(after.indexedHeight).toBe((before.indexedHeight ?? 0) + 1);
    expect(await depositsOf(db, merchant.merchantId)).toMatchObject([{ id: credited?.id, status: "CONFIRMED" }]);
    expect(await entriesFor(db, credited?.id ?? "")).toHaveLength(1);
    expect(await availableOf(db, merchant.merchantId)).toBe(available);
  });

  it("rolls back when a node behind the indexed tip shows another block at its head", async () => {
    const { merchant, address } = await merchantWithAddress();
    const lag = { blocks: 0 };
    const indexer = startIndexer({ adapter: laggingAdapter(chain.adapter(), lag) });
    await chain.pay(address, chain.amount(31));
    await chain.mine(CONFIRMATIONS - 1);
    const before = await catchUp(indexer);
    expect((await depositsOf(db, merchant.merchantId))[0]?.status).toBe("CONFIRMED");

    await chain.reorg(CONFIRMATIONS, []);
    lag.blocks = 1;
    const result = await indexer.tick();
    expect(result.reorgAncestor).toBe((before.indexedHeight ?? 0) - CONFIRMATIONS);
    expect(result.depositsReversed).toBe(1);
    lag.blocks = 0;
    await catchUp(indexer);
    expect((await depositsOf(db, merchant.merchantId)).map((d) => d.status)).toEqual(["REVERSED"]);
    expect(await availableOf(db, merchant.merchantId)).toBe(0n);
  });

  it("crash between the deposit write and the cursor move: exactly one deposit and one credit after restart", async () => {
    const { merchant, address } = await merchantWithAddress();
    const warmup = startIndexer();
    await catchUp(warmup);
    await warmup.stop();
    const cursorBefore = (await getIndexerStates(db)).find((s) => s.chain === chain.chain)?.indexedHeight;
    await chain.pay(address, chain.amount(17));

    const crashing = startIndexer({
      failpoint: (name) => {
        if (name === "after-deposits") throw new Error("crash after deposits");
      },
    });
    await expect(crashing.tick()).rejects.toThrow("crash after deposits");
    expect(await depositsOf(db, merchant.merchantId)).toEqual([]);
    expect((await getIndexerStates(db)).find((s) => s.chain === chain.chain)?.indexedHeight).toBe(cursorBefore);
    await crashing.stop();

    await chain.mine(CONFIRMATIONS - 1);
    const crashingOnCredit = startIndexer({
      failpoint: (name) => {
        if (name === "after-credit") throw new Error("crash after credit");
      },
    });
    await expect(catchUp(crashingOnCredit)).rejects.toThrow("crash after credit");
    const [pending] = await depositsOf(db, merchant.merchantId);
    expect(pending?.status).toBe("PENDING");
    expect(await entriesFor(db, pending?.id ?? "")).toEqual([]);
    await crashingOnCredit.stop();

    const restarted = startIndexer();
    await catchUp(restarted);
    await catchUp(restarted);
    const deposits = await depositsOf(db, merchant.merchantId);
    expect(deposits.map((d) => d.status)).toEqual(["CONFIRMED"]);
    expect(await entriesFor(db, deposits[0]?.id ?? "")).toHaveLength(1);
    expect(await availableOf(db, merchant.merchantId)).toBe(BigInt(deposits[0]?.net_amount_usd_micros ?? -1));
  });

  it("keeps retrying through a node outage, counts the errors, then catches up without skipping a block", async () => {
    const { merchant, address } = await merchantWithAddress();
    const metrics = createIndexerMetrics(new Registry());
    const errorsOf = async (counter: typeof metrics.rpcErrors) =>
      (await counter.get()).values.find((v) => v.labels.chain === chain.chain)?.value ?? 0;
    const indexer = startIndexer({ metrics });
    const loop = indexer.start();
    await waitFor("caught up", async () => {
      const [state] = (await getIndexerStates(db)).filter((s) => s.chain === chain.chain);
      return state?.indexedHeight === (await chain.head());
    });

    await chain.stopNode();
    // Paid while the indexer cannot see the node.
    const txHash = await chain.pay(address, chain.amount(19));
    await chain.mine(CONFIRMATIONS - 1);
    await waitFor("errors counted", async () => (await errorsOf(metrics.rpcErrors)) >= 3);
    expect(await errorsOf(metrics.tickErrors)).toBeGreaterThanOrEqual(3);
    expect(await depositsOf(db, merchant.merchantId)).toEqual([]);

    await chain.restartNode();
    const deposit = await waitFor("deposit confirmed after the outage", async () =>
      (await depositsOf(db, merchant.merchantId)).find((d) => d.status === "CONFIRMED"),
    );
    expect(deposit.tx_hash).toBe(txHash);
    // The counter follows the commit the query above saw (same tick, a moment later): wait for it.
    await waitFor("confirmation counted", async () => (await errorsOf(metrics.depositsConfirmed)) >= 1);
    await indexer.stop();
    await loop;
  });

  it("runs one indexer per chain: a second one waits and takes over when the first stops", async () => {
    const first = { merchant: await createMerchant(db), address: chain.address() };
    await addWallet(db, first.merchant, chain.chain, first.address);
    const a = startIndexer();
    const b = startIndexer();
    expect((await a.tick()).active).toBe(true);
    expect((await b.tick()).active).toBe(false);
    const loopB = b.start();

    const firstTx = await chain.pay(first.address, chain.amount(23));
    await catchUp(a);
    expect((await depositsOf(db, first.merchant.merchantId)).map((d) => d.tx_hash)).toEqual([firstTx]);
    expect((await b.tick()).active).toBe(false);

    await a.stop();
    const secondTx = await chain.pay(first.address, chain.amount(24));
    await waitFor("the standby indexer records the next deposit", async () =>
      (await depositsOf(db, first.merchant.merchantId)).some((d) => d.tx_hash === secondTx),
    );
    await b.stop();
    await loopB;

    if (process.env.DATABASE_URL) {
      // A holder whose session dies (process killed, connection lost) loses the chain with it: its
      // liveness lock goes with the session, so the lease is free at once, and a new epoch leads.
      const c = startIndexer();
      const d = startIndexer();
      expect((await c.tick()).active).toBe(true);
      expect((await d.tick()).active).toBe(false);
      const epoch = async () =>
        Number((await db.query("SELECT epoch FROM leases WHERE name = $1", [`indexer:${chain.chain}`])).rows[0]?.epoch);
      const before = await epoch();
      const killed = await db.query(
        `SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN leases ON leases.name = $1
          WHERE l.locktype = 'advisory' AND l.classid = 7245022::oid AND l.objid = hashtext(leases.holder)::oid
            AND l.granted`,
        [`indexer:${chain.chain}`],
      );
      expect(killed.rowCount).toBe(1);
      await waitFor("a new epoch after the holder's session died", async () => (await epoch()) > before);
      // Exactly one of them leads it now (the other ticks as a standby).
      const ticks = await waitFor("one leader", async () => {
        const both = [(await c.tick()).active, (await d.tick()).active];
        return both.includes(true) && both;
      });
      expect(ticks.filter(Boolean)).toHaveLength(1);
    }
  });

  it("a leader deposed between its scan and its write writes nothing; it records the deposit once when it leads again", async () => {
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
    const leader = startIndexer({
      failpoint: async (point) => {
        if (point !== "before-record" || !depose) return;
        depose = false;
        await db.query("UPDATE leases SET expires_at = clock_timestamp() WHERE name = $1", [name]);
        expect(await tryAcquireLease(db, { name, holder: otherId, seconds: 10 })).not.toBeNull();
      },
    });
    await catchUp(leader);
    const indexedHeight = async () => (await getIndexerStates(db)).find((s) => s.chain === chain.chain)?.indexedHeight;
    const heightBefore = await indexedHeight();

    const txHash = await chain.pay(address, chain.amount(7));
    depose = true;
    // The scan saw the deposit; the write's guard refuses it: the iteration ends as a standby's.
    expect(await leader.tick()).toMatchObject({ active: false });
    expect(await depositsOf(db, merchant.merchantId)).toEqual([]);
    expect(await indexedHeight()).toBe(heightBefore);
    // And it stays a standby while the other process leads.
    expect(await leader.tick()).toMatchObject({ active: false });

    // The other process goes away (its session ends): the deposed one, a standby now, leads again
    // under a new epoch and indexes the deposit once.
    await other.query("SELECT pg_advisory_unlock(7245022, hashtext($1))", [otherId]);
    other.release(true);
    await waitFor("the standby leads again", async () => (await leader.tick()).active);
    await chain.mine(CONFIRMATIONS);
    await catchUp(leader);
    const [deposit, ...more] = await depositsOf(db, merchant.merchantId);
    expect(more).toEqual([]);
    expect(deposit).toMatchObject({ tx_hash: txHash, status: "CONFIRMED" });
    expect((await entriesFor(db, deposit?.id ?? "")).map((e) => e.kind)).toEqual(["deposit_credit"]);
    const { rows } = await db.query<{ epoch: string }>("SELECT epoch FROM leases WHERE name = $1", [name]);
    expect(Number(rows[0]?.epoch)).toBeGreaterThanOrEqual(3);
  });
});
