import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { startBitcoinTreasury } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { bitcoinCase, runBitcoinCase } from "./bitcoin-money-model.ts";
import { fuzzParameters } from "./fuzz-parameters.ts";

/**
 * Issue 27: the Bitcoin send pipeline under node faults, reorgs, crashes and deposed leaders, on a
 * node without -txindex (see bitcoin-money-model.ts for the steps and the invariants). A failure
 * prints fast-check's seed and path: `pnpm fuzz money --family bitcoin --seed S` replays it.
 */
describe("money fuzz: the Bitcoin send pipeline", () => {
  const { t, h } = useTreasuryHarness((db) => startBitcoinTreasury(db, { txindex: false }));

  beforeAll(async () => {
    await h.fund([20_000_000n, 20_000_000n]);
  }, 60_000);

  it("pays every send at most once, settles each in one terminal state, reconciles to the satoshi", async () => {
    const params = fuzzParameters("bitcoin", 3);
    let ran = 0;
    await fc.assert(
      fc.asyncProperty(bitcoinCase, async (c) => {
        await runBitcoinCase(t.db, h, c);
        ran++;
      }),
      params,
    );
    expect(ran).toBe(params.numRuns);
  }, 300_000);
});
