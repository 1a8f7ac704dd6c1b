import { startBitcoinTreasury } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { bitcoinWorld } from "./bitcoin-world.ts";
import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { sendFuzz } from "./money-model.ts";

/**
 * Issue 27: the Bitcoin send pipeline under node faults, reorgs, crashes and deposed leaders, on a
 * node without -txindex (money-model.ts: the steps and the invariants). A failure prints
 * fast-check's seed and path: `pnpm fuzz money --family bitcoin --seed S --path P` replays it.
 */
describeMoneyFuzz("bitcoin", "the Bitcoin send pipeline", sendFuzz, {
  start: (db) => startBitcoinTreasury(db, { txindex: false }),
  prepare: (h) => h.fund([20_000_000n, 20_000_000n]),
  world: bitcoinWorld,
  it: "pays every send at most once, settles each in one terminal state, reconciles to the satoshi",
  regressions: [
    {
      // Seed 1640118804 path 136: a stuck payout's fee bump was refused for good, then a reorg
      // dropped the payout; the failed bump still counted as superseding it, so it was never
      // rebroadcast nor replaced again and stayed broadcast forever.
      title: "settles a payout whose transaction a reorg dropped after a refusal and crashes",
      case: {
        faultSeed: 491761101,
        steps: [
          { kind: "tick", faultRate: 0 },
          { kind: "tick", faultRate: 0.2 },
          { kind: "send", amount: 505_840n },
          { kind: "tick", faultRate: 0 },
          { kind: "send", amount: 2_237_686n },
          { kind: "tick", faultRate: 0.2 },
          { kind: "crash", atCall: 7, when: "after", wakes: true },
          { kind: "tick", faultRate: 0 },
          { kind: "tick", faultRate: 0 },
          { kind: "mine", blocks: 2 },
          { kind: "refuse" },
          { kind: "reorg", depth: 3, ours: "drop", longer: true },
          { kind: "tick", faultRate: 0 },
          { kind: "tick", faultRate: 0.2 },
          { kind: "crash", atCall: 2, when: "before", wakes: false },
          { kind: "mine", blocks: 2 },
          { kind: "tick", faultRate: 0 },
          { kind: "send", amount: 0n },
        ],
      },
    },
  ],
});
