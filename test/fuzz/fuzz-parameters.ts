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
