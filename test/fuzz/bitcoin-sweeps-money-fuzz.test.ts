import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { startBitcoinTreasury } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { bitcoinSweepWorld } from "./bitcoin-sweep-world.ts";
import { fuzzParameters } from "./fuzz-parameters.ts";
import { runSweepCase, sweepCase } from "./sweep-model.ts";
import { addToSweepTally, emptySweepTally, printSweepTally } from "./sweep-tally.ts";

/**
 * Issue 27: the Bitcoin sweeper (many deposit addresses per transaction, the fee out of the
 * deposits) and the send pipeline on a node without -txindex, customers paying deposit addresses
 * the real indexer credits, under node faults, held transactions, reorgs, crashes and deposed
 * leaders (sweep-model.ts, sweep-invariants.ts). A failure prints fast-check's seed and path:
 * `pnpm fuzz money --family bitcoin-sweeps --seed S --path P` replays it.
 */
describe("money fuzz: the Bitcoin sweeper", () => {
  const { t, h } = useTreasuryHarness((db) => startBitcoinTreasury(db, { txindex: false }));
  const params = fuzzParameters("bitcoin-sweeps", 3);

  beforeAll(async () => {
    // Matured coinbases for the customers' payments, several per case.
    await h.mine(20);
  }, 60_000);

  it(
    "sweeps every deposit at most once, settles each sweep, reconciles to the satoshi",
    async () => {
      const world = bitcoinSweepWorld(t.db, h);
      const tally = emptySweepTally();
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(sweepCase(world), async (c) => addToSweepTally(tally, await runSweepCase(world, c))),
        params,
      );
      printSweepTally("bitcoin-sweeps", tally, startedAt);
      expect(tally.cases).toBe(params.numRuns);
    },
    params.numRuns * 180_000,
  );
});
