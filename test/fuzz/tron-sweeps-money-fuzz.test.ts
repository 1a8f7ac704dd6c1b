import { startTronTreasury } from "../../packages/treasury/test/support/tron-treasury.ts";
import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { sweepFuzz } from "./sweep-model.ts";
import { tronSweepWorld } from "./tron-sweep-world.ts";

/**
 * Issue 27: the Tron sweeper (USDT after a TRX top-up for energy and bandwidth, TRX net of its
 * bandwidth) and the send pipeline on the Tron test node, customers paying deposit addresses the
 * real indexer credits, under node faults, held transactions that expire, reorgs, crashes and
 * deposed leaders (sweep-model.ts, sweep-invariants.ts). A failure prints fast-check's seed and
 * path: `pnpm fuzz money --family tron-sweeps --seed S --path P` replays it.
 */
describeMoneyFuzz("tron-sweeps", "the Tron sweeper", sweepFuzz, {
  start: (db) => startTronTreasury(db, "money-fuzz-tron-sweeps"),
  world: tronSweepWorld,
  it: "sweeps every deposit at most once, tops up once per need, settles each sweep, reconciles to the sun",
});
