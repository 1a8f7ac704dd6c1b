import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, waitForExit } from "./run-cli.ts";

/** Each test starts `payments serve` through tsx: seconds alone, longer under a loaded machine. */
const SERVE_TEST_TIMEOUT_MS = 180_000;

/** `payments serve` as an operator starts it: the configuration it accepts and what it then serves. */
describe("payments serve wiring", () => {
  let database: TestDatabase;
  let dir: string;
  // The suite's database: the server when DATABASE_URL is set, else an embedded one in a temp DATA_DIR.
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mpserve-"));
    database = await createTestDatabase({ migrate: false });
    env = process.env.DATABASE_URL
      ? { DATABASE_URL: database.connectionString, DATA_DIR: join(dir, "data") }
      : { DATABASE_URL: undefined, DATA_DIR: join(dir, "data") };
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "starts with a CHAINS_CONFIG naming one chain: that chain takes deposits, the nine others do not",
    async () => {
      const chainsFile = join(dir, "one-chain.json");
      writeFileSync(
        chainsFile,
        JSON.stringify({ chains: { BASE: { rpcUrl: "http://127.0.0.1:9", confirmations: 3 } } }),
      );
      const service = await startService(["--role", "api"], { ...env, PORT: "0", CHAINS_CONFIG: chainsFile });
      try {
        const chains = (await (await fetch(`${service.url}/v1/chains`)).json()) as {
          data: { items: Array<{ chain: string; deposits_enabled: boolean; required_confirmations: number }> };
        };
        const enabled = chains.data.items.filter((c) => c.deposits_enabled).map((c) => c.chain);
        expect(enabled).toEqual(["BASE"]);
        expect(chains.data.items).toHaveLength(10);
        expect(chains.data.items.find((c) => c.chain === "BASE")?.required_confirmations).toBe(3);
      } finally {
        service.child.kill("SIGTERM");
        expect(await waitForExit(service.child)).toBe(0);
      }
    },
    SERVE_TEST_TIMEOUT_MS,
  );
});
