import type { FaultCounts } from "./faulty-fetch.ts";
import type { SweepOutcome } from "./sweep-model.ts";

/** What the cases of one sweep fuzz run did, summed, for the closing line. */
export interface SweepTally extends SweepOutcome {
  cases: number;
}

export function emptySweepTally(): SweepTally {
  return {
    cases: 0,
    steps: 0,
    deposits: 0,
    sweeps: 0,
    confirmed: 0,
    failed: 0,
    topUps: 0,
    crashes: 0,
    faults: { calls: 0, refused: 0, "lost-answer": 0, "http-503": 0, "refused-for-good": 0 },
  };
}

export function addToSweepTally(tally: SweepTally, outcome: SweepOutcome): void {
  tally.cases++;
  tally.steps += outcome.steps;
  tally.deposits += outcome.deposits;
  tally.sweeps += outcome.sweeps;
  tally.confirmed += outcome.confirmed;
  tally.failed += outcome.failed;
  tally.topUps += outcome.topUps;
  tally.crashes += outcome.crashes;
  for (const k of Object.keys(tally.faults) as Array<keyof FaultCounts>) tally.faults[k] += outcome.faults[k];
}

export function printSweepTally(family: string, tally: SweepTally, startedAt: number): void {
  const f = tally.faults;
  process.stdout.write(
    `money fuzz ${family}: ${tally.cases} cases held every invariant in ${((Date.now() - startedAt) / 1000).toFixed(1)} s: ` +
      `${tally.steps} steps, ${tally.deposits} deposits, ${tally.sweeps} sweeps (${tally.confirmed} confirmed, ` +
      `${tally.failed} failed, ${tally.topUps} with a top-up), ${tally.crashes} crashes, ${f.calls} node calls ` +
      `(${f.refused} refused, ${f["lost-answer"]} answers lost, ${f["http-503"]} HTTP 503, ${f["refused-for-good"]} broadcasts refused for good)\n`,
  );
}
