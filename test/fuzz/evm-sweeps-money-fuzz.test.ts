import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { startEvmReconcileChain } from "../treasury/evm-reconcile-chain.ts";
import { evmSweepWorld } from "./evm-sweep-world.ts";
import { fuzzParameters } from "./fuzz-parameters.ts";
import { runSweepCase, sweepCase } from "./sweep-model.ts";
import { addToSweepTally, emptySweepTally, printSweepTally } from "./sweep-tally.ts";

/**
 * Issue 27: the EVM sweeper (USDC after a gas top-up, ETH net of its gas) and the send pipeline on
 * anvil, customers paying deposit addresses the real indexer credits, under node faults, held
 * transactions, reorgs, crashes and deposed leaders (sweep-model.ts: the steps; sweep-invariants.ts:
 * the invariants). A failure prints fast-check's seed and path: `pnpm fuzz money --family evm-sweeps
 * --seed S --path P` replays it.
 */
describe("money fuzz: the EVM sweeper", () => {
  const { t, h: chain } = useTreasuryHarness(startEvmReconcileChain);
  const params = fuzzParameters("evm-sweeps", 3);

  it(
    "sweeps every deposit at most once, tops up once per need, settles each sweep, reconciles to the unit",
    async () => {
      const world = evmSweepWorld(t.db, chain);
      const tally = emptySweepTally();
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(sweepCase(world), async (c) => addToSweepTally(tally, await runSweepCase(world, c))),
        params,
      );
      printSweepTally("evm-sweeps", tally, startedAt);
      expect(tally.cases).toBe(params.numRuns);
    },
    params.numRuns * 180_000,
  );
});
