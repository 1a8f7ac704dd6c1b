import { createBitcoinSweeper } from "@mp/chain-bitcoin";
import { type ReconcileTarget, reconcileChains } from "@mp/treasury";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BitcoinTreasuryHarness,
  startBitcoinTreasury,
} from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { createDepositMerchant } from "../../packages/treasury/test/support/evm-deposits.ts";
import { testSendPipeline } from "../../packages/treasury/test/support/test-pipelines.ts";
import { testSweeperOptions } from "../../packages/treasury/test/support/use-sweep-test.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";
import { useTestDatabase } from "../support/test-database.ts";
import { sweepRounds } from "./reconcile-fixtures.ts";

describe("payments reconcile chains after a batched Bitcoin sweep", () => {
  const database = useTestDatabase();
  let h: BitcoinTreasuryHarness;
  const targets = (): ReconcileTarget[] => [reconcileTarget(h.config, [{ asset: "BTC", address: null, decimals: 8 }])];

  beforeAll(async () => {
    const db = database.db;
    h = await startBitcoinTreasury(db);
    const [a, b, small] = (await createDepositMerchant(db, 3, "BITCOIN")).addresses;
    // The operator's float, and customers' deposits (seen by the indexer): two sweepable, one below 0.01 BTC.
    await h.fund([10_000_000n]);
    h.node.sendOutputs([
      { address: a.address, amount: 2_500_000n },
      { address: a.address, amount: 1_000_000n },
      { address: b.address, amount: 4_000_000n },
      { address: small.address, amount: 300_000n },
    ]);
    await h.mine(3);
    const loops = {
      pipeline: testSendPipeline(db, "BITCOIN", h.sender()),
      sweeper: createBitcoinSweeper(testSweeperOptions(db, h)),
    };
    const settled = async () =>
      (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM treasury_sweeps WHERE state = 'confirmed'"))
        .rows[0]?.n ?? 0;
    await sweepRounds(
      "BITCOIN",
      loops,
      (n) => h.mine(n),
      30,
      async () => (await settled()) >= 2,
    );
  }, 120_000);

  afterAll(async () => {
    await h?.stop();
  });

  it("agrees to the satoshi: the treasury holds what the addresses held less the one fee (exit 0)", async () => {
    const db = database.db;
    const sweeps = await db.query<{ state: string; tx_hash: string; fee_paid_raw: string }>(
      "SELECT state, tx_hash, fee_paid_raw::text FROM treasury_sweeps",
    );
    expect(sweeps.rows.map((r) => r.state)).toEqual(["confirmed", "confirmed"]);
    expect(new Set(sweeps.rows.map((r) => r.tx_hash)).size).toBe(1);
    const fee = sweeps.rows.reduce((sum, r) => sum + BigInt(r.fee_paid_raw), 0n);
    expect(fee).toBeGreaterThan(0n);
    // The sweep's output is the treasury's own coin, never the operator's float.
    const float = await db.query<{ amount_raw: string }>(
      "SELECT amount_raw::text FROM treasury_receipts WHERE kind = 'float' AND status <> 'REVERSED'",
    );
    expect(float.rows).toEqual([{ amount_raw: "10000000" }]);

    const report = await reconcileChains(db, targets());
    expect(report.exitCode, JSON.stringify(report.lines)).toBe(0);
    expect(report.lines[0]).toMatchObject({
      status: "agrees",
      chain_holdings: (17_800_000n - fee).toString(),
      breakdown: { deposits: "7800000", operator_float: "10000000", sent: "0", fees: fee.toString() },
    });
  });
});
