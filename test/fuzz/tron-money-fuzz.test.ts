import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { startTronTreasury } from "../../packages/treasury/test/support/tron-treasury.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { addToTally, emptyTally, fuzzParameters, printTally } from "./fuzz-parameters.ts";
import { moneyCase, runMoneyCase } from "./money-model.ts";
import { tronWorld } from "./tron-world.ts";

/**
 * Issue 27: the Tron send pipeline (TRX) under node faults, reorgs, crashes and deposed leaders
 * (money-model.ts: the steps and the invariants). A failure prints
 * fast-check's seed and path: `pnpm fuzz money --family tron --seed S --path P` replays it.
 */
describe("money fuzz: the Tron send pipeline", () => {
  const { t, h } = useTreasuryHarness((db) => startTronTreasury(db, "money-fuzz-tron"));
  const params = fuzzParameters("tron", 3);

  it(
    "pays every send at most once, settles each in one terminal state, reconciles to the sun",
    async () => {
      const world = tronWorld(t.db, h);
      const tally = emptyTally();
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(moneyCase(world), async (c) => addToTally(tally, await runMoneyCase(world, c))),
        params,
      );
      printTally("tron", tally, startedAt);
      expect(tally.cases).toBe(params.numRuns);
    },
    params.numRuns * 120_000,
  );
});
