import { createLogger, silentLogger } from "@mp/core";
import { tokenBalance } from "@mp/test-nodes/evm";
import { createEvmSweeper } from "../../../chains/evm/src/sweep/evm-sweeper.ts";
import { printTable } from "../../../test/bench/measure.ts";
import { createDepositMerchant, depositAndCredit, testDepositKeys } from "../test/support/evm-deposits.ts";
import { openEvmBenchTreasury } from "./bench-treasury.ts";

/**
 * Issue 14's sweep figure: `addresses` deposit addresses (default 1,000) each holding a confirmed
 * USDC deposit and no gas, swept into the treasury on anvil: the sweeper opens a sweep and a gas
 * top-up per address, the send pipeline sends the top-ups, the sweeper signs the token transfers
 * with the deposit keys, and the pipeline confirms them (2 confirmations; a block after each round).
 * Its table: the addresses, the top-ups sent, and the seconds from the first sweeper pass to every
 * sweep confirmed (top-ups signed, broadcast, confirmed; sweeps signed, stored, broadcast, confirmed).
 * SWEEP_BENCH_TRACE=1 prints each round's sweeper and pipeline milliseconds, and their warnings, on stderr.
 */
export async function runEvmSweepsBench(options: { addresses?: number } = {}): Promise<void> {
  const count = options.addresses ?? 1_000;
  const logger = process.env.SWEEP_BENCH_TRACE ? createLogger({ level: "warn", stderr: true }) : silentLogger();
  const { db, h, pipeline, close } = await openEvmBenchTreasury(2, { eth: 1_000n * 10n ** 18n, usdc: 0n }, logger);
  const sweeper = createEvmSweeper({
    db,
    chains: [h.config],
    depositKeys: testDepositKeys(),
    treasuryKeys: h.keys,
    logger,
  });
  try {
    const merchant = await createDepositMerchant(db, count);
    await depositAndCredit(
      db,
      h.node,
      h.usdc,
      merchant,
      merchant.addresses.map((address, i) => ({ address, asset: "USDC", amount: 20_000_000n + BigInt(i) })),
    );
    const expected = BigInt(count) * 20_000_000n + (BigInt(count) * BigInt(count - 1)) / 2n;
    const started = performance.now();
    for (;;) {
      // Side by side, as the signer runs its two loops: each works while the other waits on the node.
      const t0 = performance.now();
      const [sweeperMs, pipelineMs] = await Promise.all([
        sweeper.tick("BASE").then(() => performance.now() - t0),
        pipeline.tick("BASE").then(() => performance.now() - t0),
      ]);
      await h.node.mine(1);
      if (process.env.SWEEP_BENCH_TRACE) {
        process.stderr.write(`sweeper ${Math.round(sweeperMs)} pipeline ${Math.round(pipelineMs)}\n`);
      }
      const { rows } = await db.query<{ confirmed: number }>(
        "SELECT count(*) FILTER (WHERE state = 'confirmed')::int AS confirmed FROM treasury_sweeps",
      );
      if (rows[0]?.confirmed === count) break;
      if (performance.now() - started > 600_000)
        throw new Error(`only ${rows[0]?.confirmed} of ${count} sweeps confirmed`);
    }
    const seconds = (performance.now() - started) / 1_000;
    const held = await tokenBalance(h.node, h.usdc, h.treasury);
    if (held !== expected) throw new Error(`the treasury holds ${held} USDC, ${expected} expected`);
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM treasury_sends WHERE purpose = 'top_up'",
    );
    printTable("EVM sweeps: deposit addresses topped up with gas and swept into the treasury (target < 60 s)", [
      { addresses: count, "top-ups": rows[0]?.n ?? 0, seconds: Number(seconds.toFixed(1)) },
    ]);
  } finally {
    await sweeper.stop();
    await close();
  }
}
