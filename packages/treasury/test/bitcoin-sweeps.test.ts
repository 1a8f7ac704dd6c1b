import { Transaction } from "bitcoinjs-lib";
import { describe, expect, it } from "vitest";
import { createBitcoinSweeper } from "../../../chains/bitcoin/src/sweep/bitcoin-sweeper.ts";
import type { LeasedChainLoop } from "../src/chain-loop.ts";
import { type BitcoinTreasuryHarness, nodeRpc, startBitcoinTreasury } from "./support/bitcoin-treasury.ts";
import { createDepositMerchant, type DepositAddress, type DepositMerchant } from "./support/evm-deposits.ts";
import { attemptsOfSend, fetchWithoutBroadcast, moneyBeforeSweeps, sweepsOf } from "./support/sweep-rows.ts";
import { testSweeperOptions, useSweepTest } from "./support/use-sweep-test.ts";

const { t, h, pipeline, sweepers, settle } = useSweepTest<BitcoinTreasuryHarness, LeasedChainLoop>(
  "BITCOIN",
  startBitcoinTreasury,
  { mine: (harness) => harness.mine(1), read: sweepsOf },
);

const sweeper = (fetch?: typeof globalThis.fetch) => {
  const s = createBitcoinSweeper({
    ...testSweeperOptions(t.db, h),
    ...(fetch ? { fetch } : {}),
  });
  sweepers.push(s);
  return s;
};

/** Customers pay the deposit addresses; the indexer records the deposits and confirms them. */
const deposit = async (payments: ReadonlyArray<{ address: DepositAddress; amount: bigint }>) => {
  h.node.sendOutputs(payments.map((p) => ({ address: p.address.address, amount: p.amount })));
  await h.mine(3);
};

/** A merchant with one deposit address per amount, each paid its amount (deposit). */
const paidMerchant = async (...amounts: bigint[]): Promise<DepositMerchant> => {
  const merchant = await createDepositMerchant(t.db, amounts.length, "BITCOIN");
  await deposit(merchant.addresses.map((address, i) => ({ address, amount: amounts[i] as bigint })));
  return merchant;
};

const unspent = async (txid: string, vout: number) =>
  (await nodeRpc(h.node, "gettxout", [txid, vout, false])).result !== null;

const depositOutputs = async (merchant: DepositMerchant) =>
  (
    await t.db.query<{ to_address: string; tx_hash: string; vout: number; status: string }>(
      `SELECT to_address, tx_hash, split_part(position, ':', 2)::int AS vout, status FROM deposits
        WHERE merchant_id = $1 ORDER BY to_address`,
      [merchant.merchantId],
    )
  ).rows;

describe("Bitcoin sweeps on the Bitcoin test node", () => {
  it("sweeps many deposit addresses in one transaction, each row with its share of the fee; small ones stay", async () => {
    const merchant = await createDepositMerchant(t.db, 4, "BITCOIN");
    const [a, b, c, below] = merchant.addresses;
    await deposit([
      { address: a, amount: 2_000_000n },
      { address: a, amount: 1_500_000n },
      { address: b, amount: 5_000_000n },
      { address: c, amount: 3_000_000n },
      // Below the default 0.01 BTC threshold: stays where it is.
      { address: below, amount: 400_000n },
    ]);
    const outputs = await depositOutputs(merchant);
    expect(outputs.map((o) => o.status)).toEqual(["CONFIRMED", "CONFIRMED", "CONFIRMED", "CONFIRMED", "CONFIRMED"]);
    const money = await moneyBeforeSweeps(t.db, merchant);

    const rows = await settle(sweeper(), merchant, 3);

    expect(rows.map((r) => r.state)).toEqual(["confirmed", "confirmed", "confirmed"]);
    expect(rows.some((r) => r.deposit_address === below.address)).toBe(false);
    // ONE transaction: every row names it, every send is carried by the one attempt.
    const txHash = rows[0]?.tx_hash as string;
    for (const row of rows) {
      expect(row.tx_hash).toBe(txHash);
      expect((await attemptsOfSend(t.db, row.send_id as string)).map((x) => [x.tx_hash, x.state])).toEqual([
        [txHash, "mined"],
      ]);
    }
    const [attempt] = await attemptsOfSend(t.db, rows[0]?.send_id as string);
    const tx = Transaction.fromHex(attempt?.raw as string);
    expect(tx.ins).toHaveLength(4);
    expect(tx.outs).toHaveLength(1);
    const covered = { [a.address]: 3_500_000n, [b.address]: 5_000_000n, [c.address]: 3_000_000n };
    let fees = 0n;
    for (const row of rows) {
      expect(BigInt(row.covered_raw)).toBe(covered[row.deposit_address]);
      expect(BigInt(row.fee_paid_raw ?? "0")).toBe(BigInt(row.covered_raw) - BigInt(row.amount_raw));
      expect(BigInt(row.fee_paid_raw ?? "0")).toBeGreaterThan(0n);
      fees += BigInt(row.fee_paid_raw ?? "0");
    }
    // The treasury receives what the addresses held less the one fee, as a coin it can spend.
    expect(tx.outs[0]?.value).toBe(11_500_000n - fees);
    const coin = await t.db.query<{ address: string; amount_raw: string; spent_by: string | null }>(
      "SELECT address, amount_raw::text, spent_by FROM treasury_utxos WHERE txid = $1",
      [txHash],
    );
    expect(coin.rows).toEqual([{ address: h.treasury, amount_raw: (11_500_000n - fees).toString(), spent_by: null }]);
    expect(await unspent(txHash, 0)).toBe(true);
    for (const o of outputs) expect(await unspent(o.tx_hash, o.vout)).toBe(o.to_address === below.address);
    // Nothing new to sweep (the spent outputs are never taken again): another pass opens nothing.
    await money.expectSweptOnce(3, () => sweeper().tick("BITCOIN"));
  }, 120_000);

  it("a batch stored but never broadcast (crash) is broadcast by the pipeline and lands exactly once", async () => {
    const merchant = await paidMerchant(4_000_000n, 6_000_000n);
    // The dying sweeper signs and stores the batch, and dies before its broadcast reaches the node.
    const dying = sweeper(fetchWithoutBroadcast("sendrawtransaction"));
    await dying.tick("BITCOIN");
    await dying.stop();
    const stored = await sweepsOf(t.db, merchant);
    expect(stored.map((r) => r.state)).toEqual(["sweeping", "sweeping"]);
    const [signed] = await attemptsOfSend(t.db, stored[0]?.send_id as string);
    expect(signed?.state).toBe("signed");
    expect((await nodeRpc(h.node, "getrawtransaction", [signed?.tx_hash, false])).error).toBeDefined();
    // A live sweeper meanwhile signs nothing more: the outputs are in the stored attempt's guard.
    const live = sweeper();
    await live.tick("BITCOIN");
    const { rows: attempts } = await t.db.query<{ n: number }>(
      "SELECT count(DISTINCT x.attempt_id)::int AS n FROM treasury_attempt_sends x WHERE x.send_id = ANY($1::text[])",
      [stored.map((r) => r.send_id)],
    );
    expect(attempts[0]?.n).toBe(1);

    const rows = await settle(live, merchant, 2);
    expect(rows.map((r) => [r.state, r.tx_hash])).toEqual([
      ["confirmed", signed?.tx_hash],
      ["confirmed", signed?.tx_hash],
    ]);
    expect((await attemptsOfSend(t.db, rows[0]?.send_id as string)).map((x) => x.state)).toEqual(["mined"]);
    for (const o of await depositOutputs(merchant)) expect(await unspent(o.tx_hash, o.vout)).toBe(false);
  }, 120_000);

  it("a stuck sweep is replaced by fee (same inputs, higher rate) and exactly one of the two lands", async () => {
    const merchant = await paidMerchant(3_000_000n, 4_000_000n);
    // Miners take nothing below 3 sat/vB: the sweep, at the regtest floor (2), is stuck.
    h.node.setMiningPolicy({ minFeeRateSatPerVb: 3 });
    try {
      const rows = await settle(sweeper(), merchant, 2);
      expect(rows.map((r) => r.state)).toEqual(["confirmed", "confirmed"]);
      const { rows: attempts } = await t.db.query<{
        id: string;
        tx_hash: string;
        state: string;
        replaces: string | null;
        guard: { inputs: unknown[] };
        fee: { feeRate: string; fee: string; shares: Record<string, string> };
      }>(
        `SELECT DISTINCT a.id, a.tx_hash, a.state, a.replaces, a.guard, a.fee, a.created_at FROM treasury_attempts a
           JOIN treasury_attempt_sends x ON x.attempt_id = a.id WHERE x.send_id = ANY($1::text[]) ORDER BY a.created_at`,
        [rows.map((r) => r.send_id)],
      );
      // Every replacement tracked; the first (2 sat/vB) never lands, its replacement does.
      expect(attempts.map((x) => x.state)).toEqual(["replaced", "mined"]);
      const [first, bump] = attempts as [(typeof attempts)[0], (typeof attempts)[0]];
      expect(bump.replaces).toBe(first.id);
      expect(bump.guard).toEqual(first.guard);
      expect(BigInt(bump.fee.feeRate)).toBeGreaterThan(BigInt(first.fee.feeRate));
      expect(BigInt(bump.fee.fee)).toBeGreaterThan(BigInt(first.fee.fee));
      expect((await nodeRpc(h.node, "getrawtransaction", [first.tx_hash, false])).error).toBeDefined();
      // The rows describe the transaction that landed: its fee, shared by inputs, and what reached the treasury.
      let fees = 0n;
      for (const row of rows) {
        expect(row.tx_hash).toBe(bump.tx_hash);
        expect(row.fee_paid_raw).toBe(bump.fee.shares[row.send_id as string]);
        expect(BigInt(row.amount_raw)).toBe(BigInt(row.covered_raw) - BigInt(row.fee_paid_raw ?? "0"));
        fees += BigInt(row.fee_paid_raw ?? "0");
      }
      expect(fees).toBe(BigInt(bump.fee.fee));
      const coin = await t.db.query<{ amount_raw: string }>(
        "SELECT amount_raw::text FROM treasury_utxos WHERE txid = $1",
        [bump.tx_hash],
      );
      expect(coin.rows).toEqual([{ amount_raw: (7_000_000n - fees).toString() }]);
    } finally {
      h.node.setMiningPolicy({ minFeeRateSatPerVb: 0 });
    }
  }, 120_000);

  it("a sweep whose input left the chain in a reorg fails, and the addresses' other outputs are swept again", async () => {
    const merchant = await createDepositMerchant(t.db, 2, "BITCOIN");
    const [a, b] = merchant.addresses;
    // Two deposit transactions: the first will be dropped by a reorg, the second stays.
    const dropped = h.node.sendOutputs([{ address: a.address, amount: 2_000_000n }]);
    h.node.sendOutputs([
      { address: a.address, amount: 1_500_000n },
      { address: b.address, amount: 3_000_000n },
    ]);
    await h.mine(3);
    const s = sweeper();
    h.node.setMiningPolicy({ hold: true });
    const signed = await s
      .tick("BITCOIN")
      .then(() => pipeline.tick("BITCOIN"))
      .then(() => sweepsOf(t.db, merchant))
      .finally(() => h.node.setMiningPolicy({ hold: false }));
    expect(signed.map((r) => [r.state, r.covered_raw])).toEqual([
      ["sweeping", "3500000"],
      ["sweeping", "3000000"],
    ]);
    const [attempt] = await attemptsOfSend(t.db, signed[0]?.send_id as string);
    expect(h.node.mempool()).toEqual([attempt?.tx_hash]);
    // The block holding the first deposit is replaced by a branch without it (double-spent away).
    h.node.reorg(3, { drop: [dropped.txid] });
    expect(h.node.mempool()).toEqual([]);
    await h.catchUp();
    const rows = await settle(s, merchant, 4);
    const byState = (state: string) => rows.filter((r) => r.state === state);
    expect(
      byState("failed")
        .map((r) => r.id)
        .sort(),
    ).toEqual(signed.map((r) => r.id).sort());
    for (const row of byState("failed")) {
      expect(row.tx_hash).toBeNull();
      const { rows: why } = await t.db.query<{ reason: string }>("SELECT reason FROM treasury_sweeps WHERE id = $1", [
        row.id,
      ]);
      expect(why[0]?.reason).toMatch(/can never land.*no longer exists on the chain/);
      const send = await t.db.query<{ state: string }>("SELECT state FROM treasury_sends WHERE id = $1", [row.send_id]);
      expect(send.rows[0]?.state).toBe("failed");
      // Nothing was signed again from the vanished output: the one attempt expired.
      expect((await attemptsOfSend(t.db, row.send_id as string)).map((x) => [x.tx_hash, x.state])).toEqual([
        [attempt?.tx_hash, "expired"],
      ]);
    }
    // What is still on the chain is swept in a later pass: a 1.5M, b 3M, in one new transaction.
    const swept = byState("confirmed");
    expect(swept.map((r) => [r.deposit_address, r.covered_raw])).toEqual([
      [a.address, "1500000"],
      [b.address, "3000000"],
    ]);
    const [landed] = await attemptsOfSend(t.db, swept[0]?.send_id as string);
    expect(landed?.state).toBe("mined");
    const tx = Transaction.fromHex(landed?.raw as string);
    expect(tx.ins.map((i) => Buffer.from(i.hash).reverse().toString("hex"))).not.toContain(dropped.txid);
    expect(tx.ins).toHaveLength(2);
  }, 120_000);

  it("a batch signed again at the same tip height as its failed first one (a reorg kept the height) is refused for the pass, counted, and swept above a later tip", async () => {
    const merchant = await createDepositMerchant(t.db, 1, "BITCOIN");
    const [a] = merchant.addresses;
    const paid = h.node.sendOutputs([{ address: a.address, amount: 2_500_000n }]);
    const raw = (await nodeRpc(h.node, "getrawtransaction", [paid.txid, false])).result as string;
    await h.mine(2);
    const height = h.node.height;
    const s = sweeper();
    h.node.setMiningPolicy({ hold: true });
    try {
      await s.tick("BITCOIN");
      await pipeline.tick("BITCOIN");
      const [first] = await sweepsOf(t.db, merchant);
      const [attempt] = await attemptsOfSend(t.db, first?.send_id as string);
      // A branch of the same height without the deposit: the sweep's input is gone, it expires and fails.
      h.node.reorg(2, { drop: [paid.txid] });
      await h.catchUp();
      await pipeline.tick("BITCOIN");
      await s.tick("BITCOIN");
      expect((await sweepsOf(t.db, merchant)).map((r) => r.state)).toEqual(["failed"]);
      expect((await attemptsOfSend(t.db, first?.send_id as string)).map((x) => x.state)).toEqual(["expired"]);
      // The deposit comes back, in a branch that ends at the same height again.
      h.node.setMiningPolicy({ hold: false });
      expect((await nodeRpc(h.node, "sendrawtransaction", [raw])).result).toBe(paid.txid);
      h.node.mine(2);
      h.node.reorg(4, { blocks: 2 });
      await h.catchUp();
      expect(h.node.height).toBe(height);
      expect((await depositOutputs(merchant)).map((o) => o.status)).toContain("CONFIRMED");
      // The same inputs, rate and tip height sign to the expired attempt's own hash: the store
      // refuses it, and the pass goes on (before: it threw, every pass, and nothing was swept).
      await s.tick("BITCOIN");
      const { rows: refusals } = await t.db.query<{ refusals: string; attempt_state: string; signed_by: string }>(
        "SELECT refusals::text, attempt_state, signed_by FROM treasury_hash_refusals WHERE chain = 'BITCOIN' AND tx_hash = $1",
        [attempt?.tx_hash],
      );
      expect(refusals).toEqual([{ refusals: "1", attempt_state: "expired", signed_by: "sweep" }]);
      expect((await sweepsOf(t.db, merchant)).map((r) => r.state)).toEqual(["failed"]);
      // Above the next tip it is another transaction: swept exactly once.
      const rows = await settle(s, merchant, 2);
      expect(rows.map((r) => r.state).sort()).toEqual(["confirmed", "failed"]);
      const swept = rows.find((r) => r.state === "confirmed");
      expect(swept?.tx_hash).not.toBe(attempt?.tx_hash);
      expect(swept?.covered_raw).toBe("2500000");
    } finally {
      h.node.setMiningPolicy({ hold: false });
    }
  }, 120_000);

  it("an address whose batch throws does not hold up another merchant's sweep in the same pass", async () => {
    const poisoned = await createDepositMerchant(t.db, 1, "BITCOIN");
    const other = await createDepositMerchant(t.db, 1, "BITCOIN");
    const [bad] = poisoned.addresses;
    const [good] = other.addresses;
    await deposit([
      { address: bad, amount: 2_000_000n },
      { address: good, amount: 3_000_000n },
    ]);
    // A destination row whose path derives no receive key: signing its input throws (every pass:
    // its output stays unswept, to the file's end).
    await t.db.query("UPDATE destinations SET derivation_path = 'm/0/poisoned' WHERE id = $1", [bad.destinationId]);
    await sweeper().tick("BITCOIN");
    expect(await sweepsOf(t.db, poisoned)).toEqual([]);
    const [row] = await sweepsOf(t.db, other);
    expect([row?.state, row?.covered_raw]).toEqual(["sweeping", "3000000"]);
    const [attempt] = await attemptsOfSend(t.db, row?.send_id as string);
    expect(Transaction.fromHex(attempt?.raw as string).ins).toHaveLength(1);
  }, 120_000);
});
