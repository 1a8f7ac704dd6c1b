import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { startBitcoinTreasury } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { bitcoinWorld } from "./bitcoin-world.ts";
import { addToTally, emptyTally, fuzzParameters, printTally } from "./fuzz-parameters.ts";
import { moneyCase, runMoneyCase } from "./money-model.ts";

/**
 * Issue 27: the Bitcoin send pipeline under node faults, reorgs, crashes and deposed leaders, on a
 * node without -txindex (money-model.ts: the steps and the invariants). A failure prints
 * fast-check's seed and path: `pnpm fuzz money --family bitcoin --seed S --path P` replays it.
 */
describe("money fuzz: the Bitcoin send pipeline", () => {
  const { t, h } = useTreasuryHarness((db) => startBitcoinTreasury(db, { txindex: false }));
  const params = fuzzParameters("bitcoin", 3);

  beforeAll(async () => {
    await h.fund([20_000_000n, 20_000_000n]);
  }, 60_000);

  it(
    "pays every send at most once, settles each in one terminal state, reconciles to the satoshi",
    async () => {
      const world = bitcoinWorld(t.db, h);
      const tally = emptyTally();
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(moneyCase(world), async (c) => addToTally(tally, await runMoneyCase(world, c))),
        params,
      );
      printTally("bitcoin", tally, startedAt);
      expect(tally.cases).toBe(params.numRuns);
    },
    params.numRuns * 120_000,
  );
});
