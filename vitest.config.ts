import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "chains/*/test/**/*.test.ts",
      "services/*/test/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**"],
    pool: "forks",
    // Tests wait on PostgreSQL, anvil and HTTP far more than on CPU.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
