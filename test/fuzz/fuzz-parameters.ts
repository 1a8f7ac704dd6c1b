import type { FaultCounts } from "./faulty-fetch.ts";

export interface FuzzParameters {
  numRuns: number;
  seed: number;
  path?: string;
  endOnFailure: true;
}

/**
 * fast-check's parameters of a money fuzz file: `FUZZ_CASES` cases (default: the bounded count CI
 * runs), from `FUZZ_SEED` (and `FUZZ_PATH`, fast-check's path of a failing case) when replaying. The
 * seed is printed first, so any run, passing or not, can be replayed (`pnpm fuzz money --seed S`).
 */
export function fuzzParameters(family: string, ciCases: number): FuzzParameters {
  const numRuns = Number(process.env.FUZZ_CASES ?? ciCases);
  const seed =
    process.env.FUZZ_SEED === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED);
  const path = process.env.FUZZ_PATH;
  process.stdout.write(
    `money fuzz ${family}: ${numRuns} cases, seed ${seed}${path ? ` path ${path}` : ""} (replay: pnpm fuzz money --family ${family} --seed ${seed})\n`,
  );
  return { numRuns, seed, ...(path ? { path } : {}), endOnFailure: true };
}

/** What the cases of one run did, summed, for the closing line. */
export interface FuzzTally {
  cases: number;
  steps: number;
  sends: number;
  confirmed: number;
  failed: number;
  waitingFunds: number;
  crashes: number;
  faults: FaultCounts;
}

export function emptyTally(): FuzzTally {
  return {
    cases: 0,
    steps: 0,
    sends: 0,
    confirmed: 0,
    failed: 0,
    waitingFunds: 0,
    crashes: 0,
    faults: { calls: 0, refused: 0, "lost-answer": 0, "http-503": 0, "refused-for-good": 0 },
  };
}

export function addToTally(tally: FuzzTally, outcome: Omit<FuzzTally, "cases">): void {
  tally.cases++;
  tally.steps += outcome.steps;
  tally.sends += outcome.sends;
  tally.confirmed += outcome.confirmed;
  tally.failed += outcome.failed;
  tally.waitingFunds += outcome.waitingFunds;
  tally.crashes += outcome.crashes;
  for (const k of Object.keys(tally.faults) as Array<keyof FaultCounts>) tally.faults[k] += outcome.faults[k];
}

export function printTally(family: string, tally: FuzzTally, startedAt: number): void {
  const f = tally.faults;
  process.stdout.write(
    `money fuzz ${family}: ${tally.cases} cases held every invariant in ${((Date.now() - startedAt) / 1000).toFixed(1)} s: ` +
      `${tally.steps} steps, ${tally.sends} sends (${tally.confirmed} confirmed, ${tally.failed} failed, ` +
      `${tally.waitingFunds} waiting for funds they never get), ${tally.crashes} crashes, ${f.calls} node calls ` +
      `(${f.refused} refused, ${f["lost-answer"]} answers lost, ${f["http-503"]} HTTP 503, ${f["refused-for-good"]} broadcasts refused for good)\n`,
  );
}
