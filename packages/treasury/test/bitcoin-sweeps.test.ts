import { getMerchantBalance } from "@mp/ledger";
import { Transaction } from "bitcoinjs-lib";
import { describe, expect, it } from "vitest";
import type { LeasedChainLoop } from "../src/chain-loop.ts";
import { createBitcoinSweeper } from "../src/sweeps/bitcoin-sweeper.ts";
import { type BitcoinTreasuryHarness, nodeRpc, startBitcoinTreasury } from "./support/bitcoin-treasury.ts";
import { createDepositMerchant, type DepositAddress, type DepositMerchant } from "./support/evm-deposits.ts";
import {
  attemptsOfSend,
  fetchWithoutBroadcast,
  journalEntries,
  sweepsOf,
  untilSweepsSettled,
} from "./support/sweep-rows.ts";
import { testSweeperOptions, useSweepTest } from "./support/use-sweep-test.ts";

const { t, h, pipeline, sweepers } = useSweepTest<BitcoinTreasuryHarness, LeasedChainLoop>(
  "BITCOIN",
  startBitcoinTreasury,
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

const settle = (s: LeasedChainLoop, merchant: DepositMerchant, expected: number) =>
  untilSweepsSettled(
    [s, pipeline],
    "BITCOIN",
    () => h.mine(1),
    () => sweepsOf(t.db, merchant),
    expected,
    60_000,
  );

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
    const balance = await getMerchantBalance(t.db, merchant.merchantId);
    const entries = await journalEntries(t.db, merchant.merchantId);

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
    // Custody moved; merchant money did not.
    expect(await getMerchantBalance(t.db, merchant.merchantId)).toEqual(balance);
    expect(await journalEntries(t.db, merchant.merchantId)).toBe(entries);

    // Nothing new to sweep (the spent outputs are never taken again): another pass opens nothing.
    await sweeper().tick("BITCOIN");
    expect(await sweepsOf(t.db, merchant)).toHaveLength(3);
  }, 120_000);

  it("a batch stored but never broadcast (crash) is broadcast by the pipeline and lands exactly once", async () => {
    const merchant = await createDepositMerchant(t.db, 2, "BITCOIN");
    const [a, b] = merchant.addresses;
    await deposit([
      { address: a, amount: 4_000_000n },
      { address: b, amount: 6_000_000n },
    ]);
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
});
