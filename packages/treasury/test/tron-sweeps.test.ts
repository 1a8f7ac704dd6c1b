import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { createTronSweeper } from "../../../chains/tron/src/sweep/tron-sweeper.ts";
import type { LeasedChainLoop } from "../src/chain-loop.ts";
import {
  createDepositMerchant,
  type DepositAddress,
  type DepositMerchant,
  recordConfirmedDeposits,
} from "./support/evm-deposits.ts";
import { attemptsOfSend, fetchWithoutBroadcast, moneyBeforeSweeps, sweepsOf } from "./support/sweep-rows.ts";
import { startTronTreasury, type TronTreasuryHarness } from "./support/tron-treasury.ts";
import { testSweeperOptions, useSweepTest } from "./support/use-sweep-test.ts";

const TRX = 1_000_000n;
/** The test node's energy for a TRC-20 transfer, and its default price (sun per energy). */
const TRANSFER_ENERGY = 14_650n;
const ENERGY_PRICE = 100n;
const SWEEP_CONFIG = { thresholds: { TRX: "1" }, defaults: { token: "10", native: "0.01" }, intervalMs: 60_000 };

const { t, h, pipeline, sweepers, settle } = useSweepTest<TronTreasuryHarness, LeasedChainLoop>(
  "TRON",
  async (db) => {
    const started = await startTronTreasury(db, "tron-sweeps-test");
    started.node.transfer(started.treasury, 1_000n * TRX);
    started.node.mine();
    return started;
  },
  { mine: (harness) => harness.node.mine(), read: sweepsOf },
);

afterEach(() => {
  h.node.hold(false);
});

const sweeper = (options: { fetch?: typeof globalThis.fetch; onReady?: (ids: string[]) => void } = {}) => {
  const s = createTronSweeper({
    ...testSweeperOptions(t.db, h),
    config: SWEEP_CONFIG,
    ...options,
  });
  sweepers.push(s);
  return s;
};

/** Pays the deposits on the test node (from its faucet), mines them, records them confirmed and credited. */
const deposit = async (
  merchant: DepositMerchant,
  payments: ReadonlyArray<{ address: DepositAddress; asset: "TRX" | "USDT"; amount: bigint }>,
) => {
  for (const p of payments) {
    if (p.asset === "TRX") h.node.transfer(p.address.address, p.amount);
    else h.node.transferToken(p.address.address, p.amount);
  }
  h.node.mine();
  await recordConfirmedDeposits(
    t.db,
    "TRON",
    merchant,
    payments.map((p) => ({
      ...p,
      decimals: 6,
      contract: p.asset === "TRX" ? null : (h.node.tokens[0]?.address ?? null),
      txHash: randomBytes(32).toString("hex"),
      position: "log:0",
    })),
  );
};

describe("Tron sweeps on the Tron test node", () => {
  it("tops up energy, sweeps TRC-20 and TRX deposits into the treasury, leaves the ledger and small deposits alone", async () => {
    const merchant = await createDepositMerchant(t.db, 5, "TRON");
    const [a, b, below, trx, trxBelow] = merchant.addresses;
    await deposit(merchant, [
      { address: a, asset: "USDT", amount: 25_000_000n },
      { address: b, asset: "USDT", amount: 10_000_000n },
      { address: b, asset: "USDT", amount: 5_000_000n },
      // Below the 10 USDT and 1 TRX thresholds: they stay where they are.
      { address: below, asset: "USDT", amount: 4_000_000n },
      { address: trx, asset: "TRX", amount: 50n * TRX },
      { address: trxBelow, asset: "TRX", amount: 900_000n },
    ]);
    const treasuryUsdt = h.node.tokenBalance(h.treasury);
    const treasuryTrx = h.node.balance(h.treasury);
    const money = await moneyBeforeSweeps(t.db, merchant);

    const rows = await settle(sweeper(), merchant, 3);

    expect(rows.map((r) => [r.deposit_address, r.asset, r.state]).sort()).toEqual(
      [
        [a.address, "USDT", "confirmed"],
        [b.address, "USDT", "confirmed"],
        [trx.address, "TRX", "confirmed"],
      ].sort(),
    );
    expect(h.node.tokenBalance(h.treasury)).toBe(treasuryUsdt + 40_000_000n);
    expect(h.node.tokenBalance(a.address)).toBe(0n);
    expect(h.node.tokenBalance(b.address)).toBe(0n);
    expect(h.node.tokenBalance(below.address)).toBe(4_000_000n);
    expect(h.node.balance(trxBelow.address)).toBe(900_000n);
    let topUps = 0n;
    for (const row of rows) {
      const [attempt, ...others] = await attemptsOfSend(t.db, row.send_id as string);
      expect(others).toEqual([]);
      expect(attempt?.tx_hash).toBe(row.tx_hash);
      expect(h.node.transaction(row.tx_hash as string)).toEqual({ height: expect.any(Number), failed: false });
      if (row.asset === "USDT") {
        // The top-up was sized from the energy estimate (fee_limit: +30%) plus the bandwidth reserve.
        expect(row.top_up_state).toBe("confirmed");
        const fee = TRANSFER_ENERGY * ENERGY_PRICE;
        expect(BigInt(row.top_up_amount ?? "0")).toBe(fee + (fee * 30n) / 100n + 400_000n);
        expect(BigInt(row.fee_paid_raw ?? "0")).toBe(fee);
        expect(row.amount_raw).toBe(row.covered_raw);
        // What the energy did not burn stays at the address, explained by the top-up and the fee.
        expect(h.node.balance(row.deposit_address)).toBe(BigInt(row.top_up_amount ?? "0") - fee);
        topUps += BigInt(row.top_up_amount ?? "0");
      } else {
        // The TRX deposit paid its own bandwidth (free on this node): the reserve stays as dust.
        expect(row.top_up_send_id).toBeNull();
        expect(row.covered_raw).toBe((50n * TRX).toString());
        expect(row.amount_raw).toBe((50n * TRX - 400_000n).toString());
        expect(row.fee_paid_raw).toBe("0");
        expect(h.node.balance(trx.address)).toBe(400_000n);
      }
    }
    // The treasury paid the top-ups (bandwidth is free here) and received the TRX sweep.
    expect(h.node.balance(h.treasury)).toBe(treasuryTrx - topUps + 50n * TRX - 400_000n);
    await money.expectSweptOnce(3, () => sweeper().tick("TRON"));
  }, 120_000);

  it("a sweep stored but never broadcast (crash) is broadcast by the pipeline and lands exactly once", async () => {
    const merchant = await createDepositMerchant(t.db, 1, "TRON");
    const [address] = merchant.addresses;
    await deposit(merchant, [{ address, asset: "USDT", amount: 30_000_000n }]);
    const treasuryUsdt = h.node.tokenBalance(h.treasury);
    // The dying sweeper opens the sweep, its top-up confirms, it signs and stores the transfer, and
    // dies before its broadcast reaches the h.node.
    const dying = sweeper({ fetch: fetchWithoutBroadcast("/wallet/broadcasttransaction") });
    const deadline = Date.now() + 60_000;
    for (;;) {
      await dying.tick("TRON");
      const [row] = await sweepsOf(t.db, merchant);
      if (row?.state === "sweeping") break;
      await pipeline.tick("TRON");
      h.node.mine();
      if (Date.now() > deadline) throw new Error("the sweep was never signed");
    }
    await dying.stop();
    const [signed] = await sweepsOf(t.db, merchant);
    const stored = await attemptsOfSend(t.db, signed?.send_id as string);
    expect(stored.map((a) => a.state)).toEqual(["signed"]);
    expect(h.node.transaction(stored[0]?.tx_hash as string)).toBeUndefined();
    expect(h.node.tokenBalance(address.address)).toBe(30_000_000n);

    const [row] = await settle(sweeper(), merchant, 1);
    expect(row?.state).toBe("confirmed");
    expect(row?.tx_hash).toBe(stored[0]?.tx_hash);
    expect((await attemptsOfSend(t.db, row?.send_id as string)).map((a) => a.state)).toEqual(["mined"]);
    expect(h.node.tokenBalance(address.address)).toBe(0n);
    expect(h.node.tokenBalance(h.treasury)).toBe(treasuryUsdt + 30_000_000n);
    const { rows } = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM treasury_sends WHERE purpose IN ('top_up', 'sweep') AND (to_address = $1 OR idempotency_key = $2)",
      [address.address, `sweep:${row?.id}`],
    );
    expect(rows[0]?.n).toBe(2);
  }, 120_000);

  it("a sweep whose transaction expired unmined is signed again by the sweeper, once, and lands once", async () => {
    const merchant = await createDepositMerchant(t.db, 1, "TRON");
    const [address] = merchant.addresses;
    await deposit(merchant, [{ address, asset: "TRX", amount: 20n * TRX }]);
    const treasuryTrx = h.node.balance(h.treasury);
    h.node.hold(true);
    const s = sweeper();
    await s.tick("TRON"); // opens the sweep (no top-up for TRX)
    await s.tick("TRON"); // signs, stores and broadcasts it
    const [held] = await sweepsOf(t.db, merchant);
    expect(held?.state).toBe("sweeping");
    // Held in the pool past its expiration (60 s of block time): dropped, proven expired, requeued.
    for (let i = 0; i < 30 && (await attemptsOfSend(t.db, held?.send_id as string))[0]?.state !== "expired"; i++) {
      h.node.mine();
      await pipeline.tick("TRON");
    }
    expect((await attemptsOfSend(t.db, held?.send_id as string)).map((a) => a.state)).toEqual(["expired"]);
    h.node.hold(false);

    const [row] = await settle(s, merchant, 1);
    expect(row?.state).toBe("confirmed");
    const attempts = await attemptsOfSend(t.db, row?.send_id as string);
    expect(attempts.map((a) => a.state)).toEqual(["expired", "mined"]);
    expect(row?.tx_hash).toBe(attempts[1]?.tx_hash);
    expect(h.node.balance(h.treasury)).toBe(treasuryTrx + 20n * TRX - 400_000n);
    expect(h.node.balance(address.address)).toBe(400_000n);
  }, 120_000);

  it("a TRC-20 sweep's top-up does not count on TRX an open TRX sweep of the same address is moving", async () => {
    const merchant = await createDepositMerchant(t.db, 1, "TRON");
    const [address] = merchant.addresses;
    await deposit(merchant, [{ address, asset: "TRX", amount: 50n * TRX }]);
    const s = sweeper();
    await s.tick("TRON"); // opens the TRX sweep: its 50 TRX are leaving the address
    expect((await sweepsOf(t.db, merchant)).map((r) => [r.asset, r.state])).toEqual([["TRX", "ready"]]);
    await deposit(merchant, [{ address, asset: "USDT", amount: 25_000_000n }]);
    await s.tick("TRON"); // signs the TRX sweep, opens the USDT sweep
    const usdt = (await sweepsOf(t.db, merchant)).find((r) => r.asset === "USDT");
    // The whole fee is topped up, as for an address holding no TRX: the 50 TRX are not spare.
    const fee = TRANSFER_ENERGY * ENERGY_PRICE;
    expect(BigInt(usdt?.top_up_amount ?? "0")).toBe(fee + (fee * 30n) / 100n + 400_000n);

    const rows = await settle(s, merchant, 2);
    expect(rows.map((r) => [r.asset, r.state])).toEqual([
      ["TRX", "confirmed"],
      ["USDT", "confirmed"],
    ]);
    expect(h.node.tokenBalance(address.address)).toBe(0n);
  }, 120_000);
});
