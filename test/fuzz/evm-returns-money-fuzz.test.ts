import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedReturnsOnBase, startReturnsOnBase } from "../api/returns-on-base-support.ts";
import { type ReturnCase, returnFuzz, runReturnCase } from "./return-model.ts";
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

  // The case the search found (ledger check: returns_payable -25 USD): a held deposit's return queued,
  // then a reorg deeper than the confirmations drops the payment; and the same once the return is sent.
  it("books a return whose deposit a deep reorg removed as the operator's loss, queued or sent", async () => {
    const queueReturn = [
      { kind: "held", micros: 25_000_000n },
      { kind: "mine", blocks: 2 },
      { kind: "return", nth: 0 },
    ] as const;
    const work = { kind: "work", twice: false, dieAt: 0 } as const;
    const sendReturn = [{ kind: "tick", faultRate: 0 }, { kind: "mine", blocks: 3 }, work] as const;
    const dropAll = { kind: "reorg", depth: 3, ours: "drop", payments: "drop" } as const;
    const cases: ReturnCase[] = [
      { faultSeed: 1, steps: [...queueReturn, dropAll, ...sendReturn] },
      { faultSeed: 2, steps: [...queueReturn, ...sendReturn, { ...dropAll, depth: 12, ours: "remine" }, work] },
    ];
    for (const c of cases) expect((await runReturnCase(world, c)).deposits).toBeGreaterThan(0);
  }, 360_000);

  itHoldsEveryInvariant(
    "returns each deposit at most once on chain, never more than it owes; ledger and its return checks clean",
    "evm-returns",
    returnFuzz,
    () => world,
  );
});
