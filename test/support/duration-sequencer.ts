import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** The longest test files of a recent full run: path from the repository root -> duration (ms). */
export const DURATIONS_FILE = ".ci/test-durations.json";

function readDurations(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(root, DURATIONS_FILE), "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

/**
 * The longest files first (those of .ci/test-durations.json, longest first), then the others in
 * vitest's own order. Vitest orders by the durations of its results cache, which a fresh clone (CI)
 * does not have: it then orders by file size, and signer-crash-families (9 KB, 415 s in CI) came
 * 65th of 221, after 64 files that kept the three workers busy: the run's wall time was then at
 * least its start plus its 415 s. Started first, a long file runs beside the many short ones.
 * `node .ci/test-durations.mjs <vitest JSON report>` rewrites the list from a full run.
 */
export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const durations = readDurations(root);
    const durationOf = (file: TestSpecification) => durations[relative(root, file.moduleId).split("\\").join("/")];
    const listed = files.filter((file) => durationOf(file) !== undefined);
    const others = files.filter((file) => durationOf(file) === undefined);
    listed.sort((a, b) => (durationOf(b) ?? 0) - (durationOf(a) ?? 0));
    return [...listed, ...(await super.sort(others))];
  }
}
