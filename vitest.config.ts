import { defineConfig } from "vitest/config";
import { DurationSequencer } from "./test/support/duration-sequencer.ts";

/**
 * Files that share their worker's loaded modules (isolate: false): loading our packages again for
 * every file was about half of their time (17 package files: 22 s -> 12 s wall). Their state lives
 * in the database and in what each file starts, not in module variables; where a test needs a
 * module's fresh state (the registered ledger checks) it loads a fresh copy (vi.resetModules).
 * The other folders (test/cli, test/e2e, test/dashboard: `payments` processes and browsers) keep one
 * module graph per file: their time is in the processes they start, not in loading modules, and
 * their support modules register per-file teardown when first imported.
 */
const SHARED_MODULE_FILES = [
  "packages/*/test/**/*.test.ts",
  "chains/*/test/**/*.test.ts",
  "services/*/test/**/*.test.ts",
  "test/api/**/*.test.ts",
  "test/custody/**/*.test.ts",
  "test/webhooks/**/*.test.ts",
  "test/payment-requests/**/*.test.ts",
  "test/liquidation/**/*.test.ts",
  // In-process indexers, treasuries and fault searches against test nodes: their modules were half
  // their time when loaded again per file (measured with --no-isolate at load 5-13: test/treasury
  // 101 s -> 63 s wall, test/indexer 93 s -> 42 s, test/fuzz 40 s -> 28 s).
  "test/treasury/**/*.test.ts",
  "test/indexer/**/*.test.ts",
  "test/fuzz/**/*.test.ts",
  "test/deploy/**/*.test.ts",
  "test/docs/**/*.test.ts",
];

export default defineConfig({
  test: {
    // Which files: the two projects' include lists below.
    exclude: ["**/node_modules/**"],
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    // Longest files first (.ci/test-durations.json): the run ends when its last long file ends.
    sequence: { sequencer: DurationSequencer },
    // One file per core: the process and browser files start services, nodes and Chromium of their
    // own, and three files at once kept the 2 cores at a load of 8-10. Whole suite, this machine,
    // quiet: 3 workers 1,299 s (files' summed time 3,542 s); 2 workers, with the local sandbox read
    // once a second (c6956b5), 1,234 s (2,276 s), the machine's CPU busy 2,101 s of 2,468.
    maxWorkers: 2,
    // No globalSetup starting anvil once: a start costs ~50-150 ms and the five files that could share
    // one start it in parallel in their own worker, while a global setup starts before any worker (on
    // the critical path) and isolation would need one anvil per worker and chain id (8453, 84532,
    // 42220, 31337): measured gain under 1% of the anvil files' 65-74 s, below the run-to-run noise.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: "shared-modules", include: SHARED_MODULE_FILES, isolate: false } },
      {
        extends: true,
        test: {
          name: "isolated",
          include: ["test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...SHARED_MODULE_FILES.filter((glob) => glob.startsWith("test/"))],
        },
      },
    ],
  },
});
