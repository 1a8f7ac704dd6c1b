import { createLogger, resolveChainConfig } from "@mp/core";
import { createDisabledScreening, createSandboxRateProvider } from "@mp/providers";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { startIndexers } from "../src/indexers.ts";

describe("the indexers' log lines", () => {
  const database = useTestDatabase();

  it("carry each key once: the chain is named once per line", async () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => lines.push(line) } });
    // A node that does not answer (nothing listens on port 9): the indexer leads the chain, then
    // logs the failed iteration and backs off; both lines name the chain.
    const base = resolveChainConfig("BASE", { rpcUrl: "http://127.0.0.1:9", pollIntervalMs: 50 });
    const indexers = await startIndexers({
      db: database.db,
      logger,
      chains: { BASE: base },
      selected: ["BASE"],
      rates: createSandboxRateProvider(),
      screening: createDisabledScreening(),
      metrics: new Registry(),
      leaseSeconds: 10,
    });
    const deadline = Date.now() + 30_000;
    while (!lines.some((l) => l.includes("indexer iteration failed")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await indexers.stop();

    const messages = lines.map((line) => JSON.parse(line).msg);
    expect(messages).toContain("leading the chain");
    expect(messages).toContain("indexer iteration failed");
    for (const line of lines.map((l) => l.trim())) {
      const parsed = JSON.parse(line);
      // JSON.parse keeps the last of repeated keys: a line with a key twice is longer than its re-serialization.
      expect(JSON.stringify(parsed), line).toBe(line);
      if (parsed.msg === "leading the chain" || parsed.msg === "indexer iteration failed") {
        expect(line.match(/"chain":/g), line).toHaveLength(1);
        expect(parsed.chain).toBe("BASE");
      }
    }
  });
});
