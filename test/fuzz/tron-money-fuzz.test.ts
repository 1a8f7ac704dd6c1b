import { describe } from "vitest";
import { startTronTreasury } from "../../packages/treasury/test/support/tron-treasury.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { sendFuzz } from "./money-model.ts";
import { itHoldsEveryInvariant } from "./run-money-fuzz.ts";
import { tronWorld } from "./tron-world.ts";

/**
 * Issue 27: the Tron send pipeline (TRX) under node faults, reorgs, crashes and deposed leaders
 * (money-model.ts: the steps and the invariants). A failure prints
 * fast-check's seed and path: `pnpm fuzz money --family tron --seed S --path P` replays it.
 */
describe("money fuzz: the Tron send pipeline", () => {
  const { t, h } = useTreasuryHarness((db) => startTronTreasury(db, "money-fuzz-tron"));
  itHoldsEveryInvariant(
    "pays every send at most once, settles each in one terminal state, reconciles to the sun",
    "tron",
    sendFuzz,
    () => tronWorld(t.db, h),
  );
});
