import { startBitcoinTreasury } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { bitcoinSweepWorld } from "./bitcoin-sweep-world.ts";
import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { sweepFuzz } from "./sweep-model.ts";

/**
 * Issue 27: the Bitcoin sweeper (many deposit addresses per transaction, the fee out of the
 * deposits) and the send pipeline on a node without -txindex, customers paying deposit addresses
 * the real indexer credits, under node faults, held transactions, reorgs, crashes and deposed
 * leaders (sweep-model.ts, sweep-invariants.ts). A failure prints fast-check's seed and path:
 * `pnpm fuzz money --family bitcoin-sweeps --seed S --path P` replays it.
 */
describeMoneyFuzz("bitcoin-sweeps", "the Bitcoin sweeper", sweepFuzz, {
  start: (db) => startBitcoinTreasury(db, { txindex: false }),
  // Matured coinbases for the customers' payments, several per case.
  prepare: (h) => h.mine(20),
  world: bitcoinSweepWorld,
  it: "sweeps every deposit at most once, settles each sweep, reconciles to the satoshi",
  regressions: [
    {
      // Seed 1484973417: the coin swept again after two reorgs signed to the failed first sweep's
      // transaction id, which the attempts' store refuses: every later pass threw, nothing was swept.
      title: "sweeps a deposit again after a reorg failed its first sweep (a new transaction id, nLockTime)",
      case: {
        faultSeed: 26,
        steps: [
          { kind: "tick", loop: "pipeline", faultRate: 0 },
          { kind: "crash", atCall: 3, when: "before", wakes: false, loop: "pipeline" },
          { kind: "deposit", slot: 1, asset: 0, amount: 1_735_838n },
          { kind: "tick", loop: "sweeper", faultRate: 0 },
          { kind: "mine", blocks: 3 },
          { kind: "reorg", depth: 1, ours: "drop", longer: false },
          { kind: "mine", blocks: 1 },
          { kind: "hold", on: true },
          { kind: "tick", loop: "sweeper", faultRate: 0.2 },
          { kind: "reorg", depth: 4, ours: "remine", longer: true },
          { kind: "deposit", slot: 2, asset: 0, amount: 100_007n },
          { kind: "tick", loop: "sweeper", faultRate: 1 },
          { kind: "crash", atCall: 2, when: "before", wakes: false, loop: "pipeline" },
          { kind: "refuse", loop: "sweeper" },
          { kind: "tick", loop: "pipeline", faultRate: 1 },
          { kind: "tick", loop: "sweeper", faultRate: 1 },
          { kind: "deposit", slot: 0, asset: 0, amount: 100_004n },
          { kind: "hold", on: true },
          { kind: "tick", loop: "sweeper", faultRate: 1 },
        ],
      },
    },
  ],
});
