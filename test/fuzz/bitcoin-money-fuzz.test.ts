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
});
