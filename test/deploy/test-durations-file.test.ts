import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DURATIONS_FILE } from "../support/duration-sequencer.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The sequencer starts the files of .ci/test-durations.json first, longest first; a key that names
 * no file is silently ignored. Every key once began with `../fresh.xxxx/` (written from another
 * directory), so for three waves the longest file started 60th and the run lasted at least its start
 * plus its 300 s. This keeps the list pointing at real files.
 */
describe(".ci/test-durations.json", () => {
  const durations = JSON.parse(readFileSync(join(ROOT, DURATIONS_FILE), "utf8")) as Record<string, number>;

  it("names test files by their path from the repository root", () => {
    const missing = Object.keys(durations).filter(
      (path) => path.startsWith(".") || path.startsWith("/") || !existsSync(join(ROOT, path)),
    );
    expect(missing).toEqual([]);
    expect(Object.keys(durations).length).toBeGreaterThan(10);
  });
});
