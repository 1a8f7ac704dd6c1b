import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { runCli, runCliOk, runCliRefused, startService, waitForExit } from "./run-cli.ts";

/**
 * Each of these tests runs several `payments` processes one after another (each starts tsx and opens
 * the database, the embedded one included): well within a minute alone, but not always under the
 * full suite's parallel load on two cores.
 */
const CLI_TEST_TIMEOUT_MS = 180_000;

describe("payments CLI", () => {
  const database = useTestDatabase({ migrate: false });
  const dataDir = useTempDir("mpcli-");
  // The suite's database: the server when DATABASE_URL is set, else an embedded one in a temp DATA_DIR.
  let env: Record<string, string>;
  beforeAll(() => {
    env = process.env.DATABASE_URL ? { DATABASE_URL: database.connectionString } : { DATA_DIR: dataDir };
  });

  it(
    "documents its commands in --help",
    async () => {
      const help = await runCli(["--help"]);
      expect(help.code).toBe(0);
      for (const command of ["serve", "migrate", "merchants", "keys"]) expect(help.stdout).toContain(command);
      const serveHelp = await runCli(["serve", "--help"]);
      expect(serveHelp.stdout).toContain("--role");
      expect(serveHelp.stdout).toContain("--chains");
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "migrate, merchants create --json (one JSON object on stdout), keys create and revoke",
    async () => {
      await runCliOk(["migrate"], env);

      const created = await runCliOk(["merchants", "create", "--name", "Acme", "--json"], env);
      const lines = created.trim().split("\n");
      expect(lines).toHaveLength(1);
      const merchant = JSON.parse(lines[0] as string);
      expect(merchant).toEqual({
        merchant_id: expect.any(String),
        api_key: expect.stringMatching(/^sk_sandbox_/),
        environment: "sandbox",
      });

      const live = await runCli(
        ["merchants", "create", "--name", "Live", "--environment", "production", "--json"],
        env,
      );
      expect(JSON.parse(live.stdout).api_key).toMatch(/^sk_live_/);

      const key = await runCli(["keys", "create", "--merchant", merchant.merchant_id, "--json"], env);
      expect(key.code, key.stderr).toBe(0);
      const second = JSON.parse(key.stdout);
      expect(second.api_key).not.toBe(merchant.api_key);
      expect(second.key_prefix).toBe(second.api_key.slice(0, "sk_sandbox_".length + 8));

      await runCliOk(["keys", "revoke", "--key-prefix", second.key_prefix], env);
      await runCliRefused(["keys", "revoke", "--key-prefix", second.key_prefix], env);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "rejects bad arguments and bad configuration with one clear line, no stack trace",
    async () => {
      const badId = await runCli(["keys", "create", "--merchant", "nope"], env);
      expect(badId.code).not.toBe(0);
      expect(badId.stderr).toContain("--merchant");
      const badEnv = await runCli(["merchants", "create", "--name", "x", "--environment", "staging"], env);
      expect(badEnv.code).not.toBe(0);

      const badUrl = await runCliRefused(["migrate"], { DATABASE_URL: "mysql://nope" }, ["DATABASE_URL"]);
      expect(badUrl.trim().split("\n")).toHaveLength(1);
      expect(badUrl).not.toMatch(/\n\s+at /);
      await runCliRefused(["migrate"], { ...env, PORT: "eighty" }, ["PORT"]);
      await runCliRefused(["migrate"], { ...env, ENCRYPTION_KEY: "c2hvcnQ=" }, ["ENCRYPTION_KEY"], ["c2hvcnQ="]);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "show commands: an unknown id is one line on stderr and exit 1; a malformed id or --limit is refused",
    async () => {
      expect((await runCli(["migrate"], env)).code).toBe(0);
      const id = "00000000-0000-4000-8000-000000000000";
      for (const [group, what] of [
        ["liquidation", "liquidation address"],
        ["payment-requests", "payment request"],
      ] as const) {
        const unknown = await runCli([group, "show", id], env);
        expect(unknown.code).toBe(1);
        expect(unknown.stdout).toBe("");
        expect(unknown.stderr).toContain(`${what} ${id} not found`);
        const malformed = await runCli([group, "show", "nope"], env);
        expect(malformed.code).not.toBe(0);
        expect(malformed.stderr).toContain(`must be a ${what} id (UUID)`);
        const limit = await runCli([group, "list", "--limit", "0"], env);
        expect(limit.code).not.toBe(0);
        expect(limit.stderr).toContain("--limit");
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});

describe("the embedded default, shared between the service and the CLI", () => {
  it(
    "starts with no DATABASE_URL, answers /ready, lets the CLI work beside it, and stops cleanly on SIGTERM",
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "mpemb-"));
      try {
        const service = await startService(["--role", "api"], {
          DATA_DIR: dataDir,
          PORT: "0",
          DATABASE_URL: undefined,
        });
        const ready = await fetch(`${service.url}/ready`);
        expect(ready.status).toBe(200);
        // PGlite allows one process: the CLI joins the service's database through its socket.
        const created = await runCliOk(["merchants", "create", "--name", "Beside", "--json"], { DATA_DIR: dataDir });
        const { api_key } = JSON.parse(created);
        const list = await fetch(`${service.url}/v1/customers`, { headers: { "x-service-api-key": api_key } });
        expect(list.status).toBe(200);
        service.child.kill("SIGTERM");
        expect(await waitForExit(service.child)).toBe(0);
        expect(service.output()).not.toContain(api_key);

        // After the service stops, the CLI opens the same data itself: the merchant is still there.
        await runCliOk(["keys", "create", "--merchant", JSON.parse(created).merchant_id, "--json"], {
          DATA_DIR: dataDir,
        });
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
