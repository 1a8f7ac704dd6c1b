import { afterAll, beforeAll, describe } from "vitest";
import { type StartedReturnsOnBase, startReturnsOnBase } from "../api/returns-on-base-support.ts";
import { returnFuzz } from "./return-model.ts";
import { type ReturnsWorld, returnsWorld } from "./returns-world.ts";
import { itHoldsEveryInvariant } from "./run-money-fuzz.ts";

/**
 * Issue 29 under the fault search, on anvil with the real indexer and send pipeline: held deposits
 * returned by the operator, late payments, excesses and failed payouts' funds taken back by the
 * `return` policy, while the pipeline's node calls fail, broadcasts are refused for good (the return
 * payable, resent under key #2), blocks are reorganised (our sends and the customers' payments mined
 * again or dropped), the signer dies mid-pass and the worker's pass dies at any statement or runs
 * twice at once (return-model.ts: the steps; return-invariants.ts: the invariants). A failure prints
 * fast-check's seed and path: `pnpm fuzz money --family evm-returns --seed S --path P` replays it.
 */
describe("money fuzz: returns to payers on anvil", () => {
  let started: StartedReturnsOnBase | undefined;
  let world: ReturnsWorld;
  beforeAll(async () => {
    started = await startReturnsOnBase();
    world = await returnsWorld(started);
  }, 120_000);
  afterAll(() => started?.stop());

  itHoldsEveryInvariant(
    "returns each deposit at most once on chain, never more than it owes; ledger and its return checks clean",
    "evm-returns",
    returnFuzz,
    () => world,
  );
});
