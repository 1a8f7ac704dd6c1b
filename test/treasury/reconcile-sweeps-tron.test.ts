import { createTronSweeper } from "@mp/chain-tron";
import { type ReconcileTarget, reconcileChains } from "@mp/treasury";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDepositMerchant } from "../../packages/treasury/test/support/evm-deposits.ts";
import { testSendPipeline } from "../../packages/treasury/test/support/test-pipelines.ts";
import { startTronTreasury, type TronTreasuryHarness } from "../../packages/treasury/test/support/tron-treasury.ts";
import { testSweeperOptions } from "../../packages/treasury/test/support/use-sweep-test.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";
import { useTestDatabase } from "../support/test-database.ts";
import { sweepRounds } from "./reconcile-fixtures.ts";

const TRX = 1_000_000n;

describe("payments reconcile chains after Tron sweeps", () => {
  const database = useTestDatabase();
  let h: TronTreasuryHarness;
  let targets: ReconcileTarget[];

  beforeAll(async () => {
    const db = database.db;
    h = await startTronTreasury(db, `reconcile-sweeps-${Math.random()}`);
    targets = [reconcileTarget(h.config, h.assets)];
    const [a, b, small] = (await createDepositMerchant(db, 3, "TRON")).addresses;
    // The operator's float, and customers' deposits (seen by the indexer): two sweepable, one below 10 USDT.
    h.node.transfer(h.treasury, 300n * TRX);
    h.node.transferToken(a.address, 20_000_000n);
    h.node.transferToken(b.address, 12_000_000n);
    h.node.transfer(b.address, 30n * TRX);
    h.node.transferToken(small.address, 3_000_000n);
    await h.mine(3);

    const loops = {
      pipeline: testSendPipeline(db, "TRON", h.sender()),
      sweeper: createTronSweeper(testSweeperOptions(db, h)),
    };
    const open = async () =>
      (
        await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM treasury_sweeps WHERE state NOT IN ('confirmed', 'failed')",
        )
      ).rows[0]?.n ?? 0;
    await sweepRounds(
      "TRON",
      loops,
      (n) => h.mine(n),
      40,
      async (round) => round > 2 && (await open()) === 0,
    );
  }, 120_000);

  afterAll(async () => {
    await h?.stop();
  });

  it("agrees exactly: the treasury holds what the deposit addresses held, less the burnt energy (exit 0)", async () => {
    const db = database.db;
    const sweeps = await db.query<{ asset: string; state: string; amount_raw: string; fee_paid_raw: string }>(
      "SELECT asset, state, amount_raw::text, fee_paid_raw::text FROM treasury_sweeps ORDER BY asset, amount_raw",
    );
    expect(sweeps.rows.map((r) => [r.asset, r.state, r.amount_raw])).toEqual([
      ["TRX", "confirmed", (30n * TRX - 400_000n).toString()],
      ["USDT", "confirmed", "12000000"],
      ["USDT", "confirmed", "20000000"],
    ]);
    expect(h.node.tokenBalance(h.treasury)).toBe(32_000_000n);

    // The top-ups and sweeps are our own moves: no deposit, no float, beyond the customers' and the operator's.
    const deposits = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM deposits");
    expect(deposits.rows[0]?.n).toBe(4);
    const receipts = await db.query<{ kind: string; asset: string; amount_raw: string }>(
      "SELECT kind, asset, amount_raw::text FROM treasury_receipts WHERE status <> 'REVERSED' ORDER BY kind, asset, amount_raw",
    );
    expect(receipts.rows.filter((r) => r.kind === "float")).toEqual([
      { kind: "float", asset: "TRX", amount_raw: (300n * TRX).toString() },
    ]);

    const report = await reconcileChains(db, targets);
    expect(report.exitCode, JSON.stringify(report.lines)).toBe(0);
    const trx = report.lines.find((l) => l.asset === "TRX");
    const burnt = sweeps.rows.reduce((sum, r) => sum + BigInt(r.fee_paid_raw), 0n);
    expect(burnt).toBeGreaterThan(0n);
    expect(trx).toMatchObject({
      status: "agrees",
      chain_holdings: (330n * TRX - burnt).toString(),
      breakdown: { fees: burnt.toString(), sent: "0" },
    });
    expect(report.lines.find((l) => l.asset === "USDT")).toMatchObject({
      status: "agrees",
      chain_holdings: "35000000",
      breakdown: { deposits: "35000000", sent: "0" },
    });
  });
});
