import { createEvmSweeper } from "@mp/chain-evm";
import { silentLogger } from "@mp/core";
import { sendNative, tokenBalance, transferToken } from "@mp/test-nodes/evm";
import { type ReconcileLine, reconcileChains } from "@mp/treasury";
import type { Hex } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createDepositMerchant,
  type DepositAddress,
  testDepositKeys,
} from "../../packages/treasury/test/support/evm-deposits.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { TEST_LEASE_SECONDS } from "../support/test-leases.ts";
import { startEvmReconcileChain } from "./evm-reconcile-chain.ts";

const ETH = 10n ** 18n;

describe("EVM sweeps, then payments reconcile chains: exact, the top-ups' and sweeps' gas explained", () => {
  const { t: database, h: c } = useTreasuryHarness(startEvmReconcileChain);
  let tokenDeposit: DepositAddress;
  let nativeDeposit: DepositAddress;

  const line = (lines: ReconcileLine[], asset: string) => lines.find((l) => l.asset === asset);
  /** What each of our transactions paid in gas, read from the node by hash. */
  const feeOf = async (hash: string) => {
    const receipt = await c.node.publicClient.getTransactionReceipt({ hash: hash as Hex });
    return receipt.gasUsed * receipt.effectiveGasPrice;
  };

  beforeAll(async () => {
    const db = database.db;
    const { node, usdc, treasury, config, keys } = c;
    // Receive addresses the sweeper's deposit keys derive, watched by the indexer like any wallet's.
    const merchant = await createDepositMerchant(db, 2);
    [tokenDeposit, nativeDeposit] = merchant.addresses;
    // The operator funds the treasury (float); customers pay a token to one address (no gas there)
    // and the native coin to the other.
    await sendNative(node, treasury, 10n * ETH);
    await transferToken(node, usdc, treasury, 1_000_000_000n);
    await transferToken(node, usdc, tokenDeposit.address, 25_000_000n);
    await sendNative(node, nativeDeposit.address, ETH / 2n);
    await c.settle();
    const confirmed = await db.query<{ asset: string; status: string }>(
      "SELECT asset, status FROM deposits ORDER BY asset",
    );
    expect(confirmed.rows).toEqual([
      { asset: "ETH", status: "CONFIRMED" },
      { asset: "USDC", status: "CONFIRMED" },
    ]);

    const pipeline = c.pipeline();
    const sweeper = createEvmSweeper({
      db,
      chains: [config],
      depositKeys: testDepositKeys(),
      treasuryKeys: keys,
      logger: silentLogger(),
      leaseSeconds: TEST_LEASE_SECONDS,
    });
    try {
      for (let i = 0; i < 40; i++) {
        await sweeper.tick("BASE");
        await pipeline.tick("BASE");
        await node.mine(1);
        const { rows } = await db.query<{ state: string }>("SELECT state FROM treasury_sweeps");
        if (rows.length === 2 && rows.every((r) => r.state === "confirmed")) break;
      }
    } finally {
      await sweeper.stop();
      await pipeline.stop();
    }
    await c.settle();
  }, 180_000);

  it("sweeps the token after a gas top-up and the native coin net of its gas, both confirmed", async () => {
    const { rows } = await database.db.query<{ asset: string; state: string; top_up: string | null }>(
      `SELECT w.asset, w.state, s.purpose AS top_up FROM treasury_sweeps w
         LEFT JOIN treasury_sends s ON s.id = w.top_up_send_id ORDER BY w.asset`,
    );
    expect(rows).toEqual([
      { asset: "ETH", state: "confirmed", top_up: null },
      { asset: "USDC", state: "confirmed", top_up: "top_up" },
    ]);
    expect(await tokenBalance(c.node, c.usdc, c.treasury)).toBe(1_025_000_000n);
    expect(await tokenBalance(c.node, c.usdc, tokenDeposit.address)).toBe(0n);
    // Moves between our own addresses are never deposits, nor the operator's float.
    const deposits = await database.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deposits");
    expect(deposits.rows[0]?.n).toBe(2);
    const float = await database.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM treasury_receipts WHERE kind = 'float'",
    );
    expect(float.rows[0]?.n).toBe(2);
  });

  it("agrees to the unit, the gas of the top-up and of both sweeps counted as fees (exit 0)", async () => {
    const db = database.db;
    const report = await reconcileChains(db, c.targets());
    expect(report.lines.map((l) => [l.asset, l.status, l.difference])).toEqual([
      ["ETH", "agrees", "0"],
      ["USDC", "agrees", "0"],
    ]);
    expect(report.exitCode).toBe(0);
    // Every transaction we made: the top-up (treasury -> deposit address) and the two sweeps.
    const ours = await db.query<{ purpose: string; tx_hash: string }>(
      `SELECT s.purpose, a.tx_hash FROM treasury_sends s JOIN treasury_attempts a ON a.id = s.landed_attempt_id
        ORDER BY s.purpose`,
    );
    expect(ours.rows.map((r) => r.purpose)).toEqual(["sweep", "sweep", "top_up"]);
    let fees = 0n;
    for (const row of ours.rows) fees += await feeOf(row.tx_hash);
    const eth = line(report.lines, "ETH");
    expect(BigInt(eth?.breakdown.fees ?? "0")).toBe(fees);
    // Nothing left custody but gas: the operator's 10 ETH and the customer's 0.5, less what the three paid.
    expect(eth).toMatchObject({
      expected: (10n * ETH + ETH / 2n - fees).toString(),
      chain_holdings: (10n * ETH + ETH / 2n - fees).toString(),
    });
    expect(eth?.breakdown.sent).toBe("0");
    expect(line(report.lines, "USDC")).toMatchObject({
      expected: "1025000000",
      chain_holdings: "1025000000",
      breakdown: expect.objectContaining({ sent: "0", deposits: "25000000", operator_float: "1000000000" }),
    });
  });
});
