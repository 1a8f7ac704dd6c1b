import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { startSolanaReconcile } from "../treasury/solana-reconcile-setup.ts";
import { fuzzParameters } from "./fuzz-parameters.ts";
import { solanaSweepWorld } from "./solana-sweep-world.ts";
import { runSweepCase, sweepCase } from "./sweep-model.ts";
import { addToSweepTally, emptySweepTally, printSweepTally } from "./sweep-tally.ts";

/**
 * Issue 27: the Solana sweeper (USDC and SOL, the treasury paying fees and rent) and the send
 * pipeline on the Solana test node, customers paying deposit addresses the real indexer credits,
 * under node faults, lost transactions, reorgs, crashes and deposed leaders (sweep-model.ts,
 * sweep-invariants.ts). A failure prints fast-check's seed and path: `pnpm fuzz money --family
 * solana-sweeps --seed S --path P` replays it.
 */
describe("money fuzz: the Solana sweeper", () => {
  const { t, h: setup } = useTreasuryHarness(async (db) => {
    const started = await startSolanaReconcile(db);
    return {
      ...started,
      async stop() {
        await started.indexer.stop();
        await started.h.stop();
      },
    };
  });
  const params = fuzzParameters("solana-sweeps", 3);

  it(
    "sweeps every deposit at most once, settles each sweep, reconciles to the lamport",
    async () => {
      const world = solanaSweepWorld(t.db, setup);
      const tally = emptySweepTally();
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(sweepCase(world), async (c) => addToSweepTally(tally, await runSweepCase(world, c))),
        params,
      );
      printSweepTally("solana-sweeps", tally, startedAt);
      expect(tally.cases).toBe(params.numRuns);
    },
    params.numRuns * 180_000,
  );
});
