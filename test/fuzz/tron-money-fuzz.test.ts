import { startTronTreasury } from "../../packages/treasury/test/support/tron-treasury.ts";
import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { sendFuzz } from "./money-model.ts";
import { tronWorld } from "./tron-world.ts";

/**
 * Issue 27: the Tron send pipeline (TRX) under node faults, reorgs, crashes and deposed leaders
 * (money-model.ts: the steps and the invariants). A failure prints
 * fast-check's seed and path: `pnpm fuzz money --family tron --seed S --path P` replays it.
 */
describeMoneyFuzz("tron", "the Tron send pipeline", sendFuzz, {
  start: (db) => startTronTreasury(db, "money-fuzz-tron"),
  world: tronWorld,
  it: "pays every send at most once, settles each in one terminal state, reconciles to the sun",
});
