import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Each test file's duration in a recent full run (ms), by path from the repository root. */
export const DURATIONS_FILE = ".ci/test-durations.json";

function readDurations(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(root, DURATIONS_FILE), "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

/**
 * Longest files first, by the durations of a recent run (.ci/test-durations.json, written by
 * `node .ci/test-durations.mjs <vitest JSON report>`). Vitest's own order needs its results cache,
 * which a fresh clone (CI) does not have: it then orders by file size, and a 400 s file of 9 KB
 * started a third of the way through the run and ended long after the others (the run's wall time
 * was that file's start plus its length). A file without a recorded duration (a new one) counts as
 * the median file: nothing says it is short or long.
 */
export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const durations = readDurations(root);
    if (Object.keys(durations).length === 0) return super.sort(files);
    const recorded = Object.values(durations).sort((a, b) => a - b);
    const median = recorded[Math.floor(recorded.length / 2)] ?? 0;
    const durationOf = (file: TestSpecification) =>
      durations[relative(root, file.moduleId).split("\\").join("/")] ?? median;
    return [...files].sort((a, b) => durationOf(b) - durationOf(a));
  }
}
