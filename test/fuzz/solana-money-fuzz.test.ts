import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { startSolanaReconcile } from "../treasury/solana-reconcile-setup.ts";
import { addToTally, emptyTally, fuzzParameters, printTally } from "./fuzz-parameters.ts";
import { moneyCase, runMoneyCase } from "./money-model.ts";
import { solanaWorld } from "./solana-world.ts";

/**
 * Issue 27: the Solana send pipeline (SOL) under node faults, lost transactions, reorgs, crashes and
 * deposed leaders (money-model.ts: the steps and the invariants). A failure prints fast-check's seed
 * and path: `pnpm fuzz money --family solana --seed S --path P` replays it.
 */
describe("money fuzz: the Solana send pipeline", () => {
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
  const params = fuzzParameters("solana", 3);

  it(
    "pays every send at most once, settles each in one terminal state, reconciles to the lamport",
    async () => {
      const world = solanaWorld(t.db, setup);
      const tally = emptyTally();
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(moneyCase(world), async (c) => addToTally(tally, await runMoneyCase(world, c))),
        params,
      );
      printTally("solana", tally, startedAt);
      expect(tally.cases).toBe(params.numRuns);
    },
    params.numRuns * 120_000,
  );
});
