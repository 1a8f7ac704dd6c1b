import { createDatabase, type Database, startEmbedded } from "@mp/db";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { runCli, startService, waitForExit } from "./run-cli.ts";

/**
 * Each of these tests runs several `payments` processes one after another (each starts tsx and opens
 * the database, the embedded one included): well within a minute alone, but not always under the
 * full suite's parallel load on two cores.
 */
const CLI_TEST_TIMEOUT_MS = 180_000;

/** A second well-known BIP-39 test mnemonic: different root fingerprint from the sandbox one. */
const OTHER_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("operator commands: custody verify, wallets export, ledger check and export", () => {
  const database = useTestDatabase({ migrate: false });
  const dataDir = useTempDir("mpops-");
  let env: Record<string, string | undefined>;
  let merchantId: string;
  const walletIds: string[] = [];

  beforeAll(async () => {
    // DATA_DIR always: the sandbox mnemonic is generated there on first start and reused after.
    env = { DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined };
    const service = await startService(["--role", "api"], { ...env, PORT: "0" });
    try {
      const created = await runCli(["merchants", "create", "--name", "Ops", "--json"], env);
      expect(created.code, created.stderr).toBe(0);
      const merchant = JSON.parse(created.stdout);
      merchantId = merchant.merchant_id;
      const headers = { "x-service-api-key": merchant.api_key, "content-type": "application/json" };
      const customer = await fetch(`${service.url}/v1/customers`, {
        method: "POST",
        headers: { ...headers, "x-idempotency-key": "c1" },
        body: JSON.stringify({ type: "INDIVIDUAL", first_name: "Ada", last_name: "Ops" }),
      }).then((r) => r.json() as Promise<{ data: { id: string } }>);
      for (const n of [1, 2]) {
        const wallet = await fetch(`${service.url}/v1/wallets`, {
          method: "POST",
          headers: { ...headers, "x-idempotency-key": `w${n}` },
          body: JSON.stringify({ customer_id: customer.data.id, label: `w${n}` }),
        }).then((r) => r.json() as Promise<{ data: { id: string } }>);
        walletIds.push(wallet.data.id);
      }
    } finally {
      service.child.kill("SIGTERM");
      await waitForExit(service.child);
    }
  });
  /** The database the CLI uses: the test database on the server, or the embedded one in DATA_DIR. */
  async function withSql(fn: (db: Database) => Promise<unknown>): Promise<void> {
    if (process.env.DATABASE_URL) {
      await fn(database.db);
      return;
    }
    const server = await startEmbedded({ dataDir });
    const db = createDatabase({ connectionString: server.connectionString, engine: "pglite", max: 1 });
    try {
      await fn(db);
    } finally {
      await db.close();
      await server.stop();
    }
  }

  it(
    "wallets export writes one CSV row per destination, with the derivation path",
    async () => {
      const out = await runCli(["wallets", "export", "--merchant", merchantId], env);
      expect(out.code, out.stderr).toBe(0);
      const lines = out.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/wallet_id.*chain.*address.*path/);
      expect(lines).toHaveLength(1 + 2 * 10);
      expect(out.stdout).toContain("m/44'/60'/0'/0/1");
      expect(out.stdout).toContain("m/84'/1'/0'/0/0"); // regtest: the local sandbox's Bitcoin network
      for (const id of walletIds) expect(out.stdout).toContain(id);
      const unknown = await runCli(["wallets", "export", "--merchant", "00000000-0000-4000-8000-000000000000"], env);
      expect(unknown.code).toBe(1);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "custody verify passes, reports a tampered address (exit 1), and a different mnemonic is refused",
    async () => {
      const ok = await runCli(["custody", "verify"], env);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain("checked 20 addresses, 0 mismatches");

      await withSql((db) =>
        db.query(
          "UPDATE destinations SET address = 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy' WHERE chain = 'TRON' AND wallet_id = $1",
          [walletIds[0]],
        ),
      );
      const bad = await runCli(["custody", "verify"], env);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/MISMATCH .*chain=TRON/);
      expect(bad.stdout).toContain("1 mismatches");

      const other = await runCli(["custody", "verify"], { ...env, MASTER_MNEMONIC: OTHER_MNEMONIC });
      expect(other.code).toBe(1);
      expect(other.stderr).toContain("MASTER_MNEMONIC");
      expect(other.stderr).toContain("does not match this database");
      expect(other.stderr).not.toContain("abandon");
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "ledger check passes on a consistent ledger and ledger export writes the CSV header",
    async () => {
      const check = await runCli(["ledger", "check"], env);
      expect(check.code, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).toMatch(/^OK: /m);
      const exported = await runCli(["ledger", "export", "--from", "2020-01-01", "--to", "2100-01-01"], env);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout.split("\n")[0]).toMatch(/entry_id/);
      const badDate = await runCli(["ledger", "export", "--from", "yesterday", "--to", "2100-01-01"], env);
      expect(badDate.code).toBe(1);
      expect(badDate.stderr).toContain("--from");
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
