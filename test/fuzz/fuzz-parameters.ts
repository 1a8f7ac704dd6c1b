/**
 * fast-check's parameters of a money fuzz file: `FUZZ_CASES` cases (default: the bounded count CI
 * runs), from `FUZZ_SEED` when replaying one. The seed is printed so any run can be replayed.
 */
export function fuzzParameters(family: string, ciCases: number): { numRuns: number; seed: number; endOnFailure: true } {
  const numRuns = Number(process.env.FUZZ_CASES ?? ciCases);
  const seed =
    process.env.FUZZ_SEED === undefined ? Date.now() ^ (Math.random() * 2 ** 31) : Number(process.env.FUZZ_SEED);
  process.stdout.write(
    `money fuzz ${family}: ${numRuns} cases, seed ${seed} (replay: pnpm fuzz money --family ${family} --seed ${seed})\n`,
  );
  return { numRuns, seed, endOnFailure: true };
}
