import fc from "fast-check";
import { expect, it } from "vitest";
import type { FaultCounts } from "./faulty-fetch.ts";
import { fuzzParameters } from "./fuzz-parameters.ts";

/** What one fuzz case did: its steps, its model's own counters, the crashes it caused and the faults its node link injected. */
export interface FuzzOutcome {
  steps: number;
  crashes: number;
  faults: FaultCounts;
}

/** A fuzz model: its cases, how one runs, and how the sum of their outcomes reads. */
export interface FuzzModel<W, C, O extends FuzzOutcome> {
  caseOf(world: W): fc.Arbitrary<C>;
  run(world: W, c: C): Promise<O>;
  /** The model's own counters of a run's sum, for the closing line (after its steps). */
  describe(total: O): string;
  /** The bound on one case, in milliseconds. */
  caseMs: number;
}

/** Adds every counter of `outcome` (and its faults) to `total`: the sum so far, none before the first case. */
export function addOutcome<O extends FuzzOutcome>(total: O | undefined, outcome: O): O {
  if (!total) return { ...outcome, faults: { ...outcome.faults } };
  const sum = total as unknown as Record<string, number>;
  for (const [k, v] of Object.entries(outcome)) if (typeof v === "number") sum[k] = (sum[k] ?? 0) + v;
  for (const k of Object.keys(total.faults) as Array<keyof FaultCounts>) total.faults[k] += outcome.faults[k];
  return total;
}

function closingLine<O extends FuzzOutcome>(
  family: string,
  cases: number,
  total: O,
  model: FuzzModel<unknown, unknown, O>,
  startedAt: number,
): string {
  const f = total.faults;
  return (
    `money fuzz ${family}: ${cases} cases held every invariant in ${((Date.now() - startedAt) / 1000).toFixed(1)} s: ` +
    `${total.steps} steps, ${model.describe(total)}, ${total.crashes} crashes, ${f.calls} node calls ` +
    `(${f.refused} refused, ${f["lost-answer"]} answers lost, ${f["http-503"]} HTTP 503, ${f["refused-for-good"]} broadcasts refused for good, ${f["stale-receipt"]} receipts served late)\n`
  );
}

/**
 * The test of one money fuzz file: fast-check runs `model`'s cases on the world `world()` builds (from
 * the file's harness, once it has started), with the parameters of `family` (fuzz-parameters.ts), and
 * prints the sum of what the cases did. A broken invariant fails it with fast-check's seed and path.
 */
export function itHoldsEveryInvariant<W, C, O extends FuzzOutcome>(
  title: string,
  family: string,
  model: FuzzModel<W, C, O>,
  world: () => W,
): void {
  const params = fuzzParameters(family, 3);
  it(
    title,
    async () => {
      const w = world();
      let total: O | undefined;
      let cases = 0;
      const startedAt = Date.now();
      await fc.assert(
        fc.asyncProperty(model.caseOf(w), async (c) => {
          total = addOutcome(total, await model.run(w, c));
          cases++;
        }),
        params,
      );
      if (total)
        process.stdout.write(closingLine(family, cases, total, model as FuzzModel<unknown, unknown, O>, startedAt));
      expect(cases).toBe(params.numRuns);
    },
    params.numRuns * model.caseMs,
  );
}
