import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startService, waitForExit } from "./run-cli.ts";

/** Each test starts `payments serve` through tsx: seconds alone, longer under a loaded machine. */
const SERVE_TEST_TIMEOUT_MS = 180_000;

/** `payments serve` as an operator starts it: the configuration it accepts and what it then serves. */
describe("payments serve wiring", () => {
  let database: TestDatabase;
  let dir: string;
  // The suite's database (the server's when DATABASE_URL is set, else an embedded one behind its
  // socket), migrated here so the service's own start does little more than check it.
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mpserve-"));
    database = await createTestDatabase();
    env = { DATABASE_URL: database.connectionString, DATA_DIR: join(dir, "data") };
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "starts with a CHAINS_CONFIG naming one chain (that chain takes deposits, the nine others do not) and METRICS_TOKEN guarding /metrics",
    async () => {
      const chainsFile = join(dir, "one-chain.json");
      writeFileSync(
        chainsFile,
        JSON.stringify({ chains: { BASE: { rpcUrl: "http://127.0.0.1:9", confirmations: 3 } } }),
      );
      const token = "scrape-token-0123456789";
      const service = await startService(["--role", "api"], {
        ...env,
        PORT: "0",
        CHAINS_CONFIG: chainsFile,
        METRICS_TOKEN: token,
      });
      try {
        const chains = (await (await fetch(`${service.url}/v1/chains`)).json()) as {
          data: { items: Array<{ chain: string; deposits_enabled: boolean; required_confirmations: number }> };
        };
        const enabled = chains.data.items.filter((c) => c.deposits_enabled).map((c) => c.chain);
        expect(enabled).toEqual(["BASE"]);
        expect(chains.data.items).toHaveLength(10);
        expect(chains.data.items.find((c) => c.chain === "BASE")?.required_confirmations).toBe(3);

        expect((await fetch(`${service.url}/metrics`)).status).toBe(401);
        const scraped = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        expect(scraped.status).toBe(200);
        expect(await scraped.text()).toContain("process_cpu_user_seconds_total");
      } finally {
        service.child.kill("SIGTERM");
        expect(await waitForExit(service.child)).toBe(0);
      }
    },
    SERVE_TEST_TIMEOUT_MS,
  );

  it(
    "refuses to start in production with one line naming the setting: METRICS_TOKEN, then the sandbox providers",
    async () => {
      const production = { ...env, PAYMENTS_ENV: "production" };
      const noToken = await runCli(["serve", "--role", "api"], production);
      expect(noToken.code).toBe(1);
      expect(noToken.stderr.trim().split("\n")).toEqual([
        "payments: configuration error: METRICS_TOKEN: required in production (GET /metrics answers only Authorization: Bearer <METRICS_TOKEN>)",
      ]);
      // An indexer process serves no /metrics: it needs no token, but it does value deposits.
      const indexer = await runCli(["serve", "--role", "indexer"], production);
      expect(indexer.code).toBe(1);
      expect(indexer.stderr).toMatch(
        /^payments: configuration error: RATES_PROVIDER, KYC_PROVIDER, BANKING_PROVIDER: /,
      );

      const token = "scrape-token-0123456789";
      // Unset providers count as sandbox; the explicit value is refused alike (services/payments/test).
      const refused = await runCli(["serve", "--role", "all"], { ...production, METRICS_TOKEN: token });
      expect(refused.code).toBe(1);
      const lines = refused.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^payments: configuration error: RATES_PROVIDER, KYC_PROVIDER, BANKING_PROVIDER: sandbox providers .* refused when PAYMENTS_ENV=production; unset means sandbox$/,
      );
      expect(refused.stderr).not.toContain(token);
    },
    SERVE_TEST_TIMEOUT_MS,
  );
});
