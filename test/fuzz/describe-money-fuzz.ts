import type { Database } from "@mp/db";
import { beforeAll, describe, it } from "vitest";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { type FuzzModel, type FuzzOutcome, itHoldsEveryInvariant } from "./run-money-fuzz.ts";

/** Where one money fuzz file runs: its harness, what is done once it has started, and the claim it tests. */
export interface MoneyFuzzSetup<H, W, C = unknown> {
  /** The family's harness on the file's fresh test database. */
  start(db: Database): Promise<H>;
  /** Once the harness has started, before the cases (e.g. coins to spend). */
  prepare?(h: H): Promise<unknown>;
  /** The model's world on the database and harness. */
  world(db: Database, h: NoInfer<H>): W;
  /** The test's title: what every case must hold. */
  it: string;
  /** Cases the search once failed on, run first on every run (each its own test) once fixed. */
  regressions?: ReadonlyArray<{ title: string; case: C }>;
}

/**
 * A money fuzz file (issue 27): `describe("money fuzz: <subject>")` with a fresh test database, the
 * harness on it and one test, fast-check running `model` with the parameters of `family`
 * (itHoldsEveryInvariant).
 */
export function describeMoneyFuzz<H extends { stop(): Promise<void> }, W, C, O extends FuzzOutcome>(
  family: string,
  subject: string,
  model: FuzzModel<W, C, O>,
  setup: MoneyFuzzSetup<H, W, C>,
): void {
  describe(`money fuzz: ${subject}`, () => {
    const { t, h } = useTreasuryHarness(setup.start);
    if (setup.prepare) {
      const prepare = setup.prepare;
      beforeAll(() => prepare(h), 60_000);
    }
    for (const regression of setup.regressions ?? []) {
      it(regression.title, () => model.run(setup.world(t.db, h), regression.case).then(() => undefined), model.caseMs);
    }
    itHoldsEveryInvariant(setup.it, family, model, () => setup.world(t.db, h));
  });
}
