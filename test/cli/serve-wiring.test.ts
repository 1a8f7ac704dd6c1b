import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestDatabase } from "@mp/db/testing";
import { compileMockAggregator, deployMockAggregator, setRound, startAnvil } from "@mp/test-nodes/evm";
import { getAddress } from "viem";
import { english, generateMnemonic } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { runCli, startService, waitForExit } from "./run-cli.ts";

/** Each test starts `payments serve` through tsx: seconds alone, longer under a loaded machine. */
const SERVE_TEST_TIMEOUT_MS = 180_000;

/** `payments serve` as an operator starts it: the configuration it accepts and what it then serves. */
describe("payments serve wiring", () => {
  const dir = useTempDir("mpserve-");
  // The suite's database (the server's when DATABASE_URL is set, else an embedded one behind its
  // socket), migrated here so the service's own start does little more than check it.
  const database = useTestDatabase();
  const env = () => ({ DATABASE_URL: database.connectionString, DATA_DIR: join(dir, "data") });

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
        ...env(),
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
      const production = { ...env(), PAYMENTS_ENV: "production" };
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

  it(
    "starts in production on real providers: Chainlink rates (a feed on anvil), manual KYC, statement banking",
    async () => {
      const node = await startAnvil();
      // A database of its own: the tests above derived addresses from the sandbox mnemonic in theirs.
      const live = await createTestDatabase();
      try {
        const feed = await deployMockAggregator(node, compileMockAggregator(), 8, "ETH / USD");
        const updatedAt = BigInt(Math.floor(Date.now() / 1000));
        await setRound(node, feed, { roundId: 7n, answer: 3_210_50000000n, updatedAt });
        const feedsFile = join(dir, "feeds.json");
        writeFileSync(feedsFile, JSON.stringify({ ETH: { address: feed, heartbeatSeconds: 3600, decimals: 8 } }));
        // Production screens against a sanctions list (docs/sanctions.md): one file of one address here.
        const sanctionsList = join(dir, "sanctioned_addresses_ETH.txt");
        writeFileSync(sanctionsList, "0x1111111111111111111111111111111111111111\n");
        const production = {
          DATABASE_URL: live.connectionString,
          DATA_DIR: join(dir, "live-data"),
          PAYMENTS_ENV: "production",
          MASTER_MNEMONIC: generateMnemonic(english, 256),
          ENCRYPTION_KEY: randomBytes(32).toString("base64"),
          METRICS_TOKEN: "scrape-token-0123456789",
          RATES_PROVIDER: "chainlink",
          RATES_RPC_URL: node.url,
          RATES_FEEDS_FILE: feedsFile,
          KYC_PROVIDER: "manual",
          BANKING_PROVIDER: "statement",
          BANK_NAME: "First Statement Bank",
          BANK_ADDRESS: "1 Main Street, Springfield, IL 62701",
          BANK_ROUTING_NUMBER: "071000013",
          BANK_ACCOUNT_NAME: "Acme Payments LLC",
          BANK_ACCOUNT_RANGE: "800000000000-800000999999",
          SANCTIONS_LIST_PATH: sanctionsList,
        };
        // Without a list (and without SANCTIONS_SCREENING=off) production refuses to start, in one line.
        const { SANCTIONS_LIST_PATH: _list, ...unscreened } = production;
        const noList = await runCli(["serve", "--role", "all"], { ...unscreened, PORT: "0" });
        expect(noList.code).toBe(1);
        expect(noList.stderr.trim().split("\n")).toHaveLength(1);
        expect(noList.stderr).toMatch(
          /^payments: configuration error: SANCTIONS_LIST_PATH: required in production .*SANCTIONS_SCREENING=off opts out explicitly$/m,
        );
        const created = await runCli(
          ["merchants", "create", "--name", "Live", "--environment", "production", "--json"],
          production,
        );
        expect(created.code, created.stderr).toBe(0);
        const apiKey = JSON.parse(created.stdout).api_key as string;

        const service = await startService(["--role", "api"], { ...production, PORT: "0" });
        try {
          const ready = await fetch(`${service.url}/ready`);
          expect(ready.status).toBe(200);
          expect(((await ready.json()) as { data: unknown }).data).toEqual({
            status: "ready",
            checks: { database: "ok" },
          });
          // The rates are the feed's: its answer, its source, its staleness limit as expires_at.
          const rates = await fetch(`${service.url}/v1/rates`, { headers: { "X-Service-API-Key": apiKey } });
          expect(rates.status).toBe(200);
          expect(((await rates.json()) as { data: { items: unknown[] } }).data.items).toEqual([
            {
              from_currency: "ETH",
              to_currency: "USD",
              rate: "3210.5",
              source: `chainlink:${getAddress(feed)}`,
              expires_at: new Date(Number(updatedAt + 3600n + 120n) * 1000).toISOString(),
            },
          ]);
          expect(service.output()).toContain('"rates":"chainlink","kyc":"manual","banking":"statement"');
          expect(service.output()).toContain("sanctions screening ready");
        } finally {
          service.child.kill("SIGTERM");
          expect(await waitForExit(service.child), service.output()).toBe(0);
        }

        // A feeds file of another shape stops the start with one line naming the setting.
        writeFileSync(feedsFile, JSON.stringify({ ETH: { address: feed } }));
        const refused = await runCli(["serve", "--role", "all"], { ...production, PORT: "0" });
        expect(refused.code).toBe(1);
        expect(refused.stderr.trim().split("\n")).toEqual([
          "payments: configuration error: RATES_FEEDS_FILE: invalid feeds at ETH.heartbeatSeconds: Invalid input: expected number, received undefined",
        ]);
      } finally {
        await live.drop();
        await node.stop();
      }
    },
    SERVE_TEST_TIMEOUT_MS,
  );
});
