import { defineConfig } from "vitest/config";
import { DurationSequencer } from "./test/support/duration-sequencer.ts";

export default defineConfig({
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "chains/*/test/**/*.test.ts",
      "services/*/test/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**"],
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    // Longest files first (.ci/test-durations.json): the run ends when its last long file ends.
    sequence: { sequencer: DurationSequencer },
    // Tests wait on PostgreSQL, anvil and HTTP far more than on CPU.
    maxWorkers: 3,
    // No globalSetup starting anvil once: a start costs ~50-150 ms and the five files that could share
    // one start it in parallel in their own worker, while a global setup starts before any worker (on
    // the critical path) and isolation would need one anvil per worker and chain id (8453, 84532,
    // 42220, 31337): measured gain under 1% of the anvil files' 65-74 s, below the run-to-run noise.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
