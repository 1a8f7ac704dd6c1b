import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { startEvmReconcileChain } from "../treasury/evm-reconcile-chain.ts";
import { evmWorld } from "./evm-world.ts";
import { addToTally, emptyTally, fuzzParameters, printTally } from "./fuzz-parameters.ts";
import { moneyCase, runMoneyCase } from "./money-model.ts";

/**
 * Issue 27: the EVM send pipeline (ETH on anvil) under node faults, held transactions, reorgs, crashes and
 * deposed leaders (money-model.ts: the steps and the invariants). A failure prints fast-check's seed
 * and path: `pnpm fuzz money --family evm --seed S --path P` replays it.
 */
describe("money fuzz: the EVM send pipeline", () => {
  const { t, h: chain } = useTreasuryHarness(startEvmReconcileChain);
  const params = fuzzParameters("evm", 3);

  it(
    "pays every send at most once, settles each in one terminal state, reconciles to the wei",
    async () => {
      const world = evmWorld(t.db, chain);
      const tally = emptyTally();
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(moneyCase(world), async (c) => addToTally(tally, await runMoneyCase(world, c))),
        params,
      );
      printTally("evm", tally, startedAt);
      expect(tally.cases).toBe(params.numRuns);
    },
    params.numRuns * 120_000,
  );
});
