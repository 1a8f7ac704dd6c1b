import { createDatabase, type Database, startEmbedded } from "@mp/db";
import { postDepositCredits } from "@mp/ledger";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { runCli, runCliOk, runCliRefused, startService, waitForExit } from "./run-cli.ts";

/**
 * Each of these tests runs several `payments` processes one after another (each starts tsx and opens
 * the database, the embedded one included): well within a minute alone, but not always under the
 * full suite's parallel load on two cores.
 */
const CLI_TEST_TIMEOUT_MS = 180_000;

/** A second well-known BIP-39 test mnemonic: different root fingerprint from the sandbox one. */
const OTHER_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("operator commands: custody verify, wallets export, ledger check and export, held deposits", () => {
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
      const created = await runCliOk(["merchants", "create", "--name", "Ops", "--json"], env);
      const merchant = JSON.parse(created);
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
      const out = await runCliOk(["wallets", "export", "--merchant", merchantId], env);
      const lines = out.trim().split("\n");
      expect(lines[0]).toMatch(/wallet_id.*chain.*address.*path/);
      expect(lines).toHaveLength(1 + 2 * 10);
      expect(out).toContain("m/44'/60'/0'/0/1");
      expect(out).toContain("m/84'/1'/0'/0/0"); // regtest: the local sandbox's Bitcoin network
      for (const id of walletIds) expect(out).toContain(id);
      await runCliRefused(["wallets", "export", "--merchant", "00000000-0000-4000-8000-000000000000"], env);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "custody verify passes, reports a tampered address (exit 1), and a different mnemonic is refused",
    async () => {
      const ok = await runCliOk(["custody", "verify"], env);
      expect(ok).toContain("checked 20 addresses, 0 mismatches");

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

      await runCliRefused(
        ["custody", "verify"],
        { ...env, MASTER_MNEMONIC: OTHER_MNEMONIC },
        ["MASTER_MNEMONIC", "does not match this database"],
        ["abandon"],
      );
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "deposits held lists a held deposit; release and return resolve one each, once; the ledger stays consistent",
    async () => {
      const held: string[] = [];
      await withSql(async (db) => {
        for (const n of [1, 2]) {
          await db.tx(async (c) => {
            const { rows } = await c.query<{ id: string }>(
              `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, to_address,
                 from_address, tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations,
                 status, usd_rate, amount_usd_micros, fee_usd_micros, net_amount_usd_micros, confirmed_at,
                 hold_status, held_reason)
               SELECT gen_random_uuid(), w.merchant_id, w.id, d.id, w.customer_id, 'BASE', 'USDC', d.address,
                 '0x00000000000000000000000000000000000000aa', '0x' || md5(random()::text) || md5(random()::text),
                 'log:0', 1, '0xblock', 6, $2, 3, 'CONFIRMED', '1', $2, 0, $2, now(), 'HELD', 'customer_rejected'
                 FROM wallets w JOIN destinations d ON d.wallet_id = w.id AND d.chain = 'BASE' WHERE w.id = $1
               RETURNING id`,
              [walletIds[0], (n * 5_000_000).toString()],
            );
            const id = rows[0]?.id ?? "";
            const [posted] = await postDepositCredits(c, [
              { depositId: id, merchantId, amountUsdMicros: BigInt(n * 5_000_000), feeUsdMicros: 0n, held: true },
            ]);
            await c.query("UPDATE deposits SET credit_entry_id = $2 WHERE id = $1", [id, posted?.entryId]);
            held.push(id);
          });
        }
      });
      const [toRelease, toReturn] = held as [string, string];
      const listed = await runCliOk(["deposits", "held", "--json"], env);
      const rows = JSON.parse(listed) as Array<Record<string, string>>;
      expect(rows.map((r) => [r.deposit_id, r.net_amount_usd, r.held_reason])).toEqual([
        [toRelease, "5.000000", "customer_rejected"],
        [toReturn, "10.000000", "customer_rejected"],
      ]);

      const released = await runCli(["deposits", "release", "--deposit", toRelease], env);
      expect(released.code, released.stderr).toBe(0);
      expect(released.stdout).toContain(`released deposit ${toRelease}`);
      await runCliRefused(["deposits", "release", "--deposit", toRelease], env, ["already RELEASED"]);

      await runCliRefused(["deposits", "return", "--deposit", toReturn], env, ["--reason"]);
      const returned = await runCliOk(["deposits", "return", "--deposit", toReturn, "--reason", "KYC rejected"], env);
      expect(returned).toContain("owed to its payer");

      const after = await runCli(["deposits", "held"], env);
      expect(after.stdout).toContain("0 held deposits");
      await runCliOk(["ledger", "check"], env);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  it(
    "ledger check passes on a consistent ledger and ledger export writes the CSV header",
    async () => {
      const check = await runCliOk(["ledger", "check"], env);
      expect(check).toMatch(/^OK: /m);
      // The transfers' checks, registered by the command itself (the composition root), not by an import.
      expect(check).toMatch(/^also checked: transfers, transfer funding deposits, bank returns, liquidation drains$/m);
      const exported = await runCliOk(["ledger", "export", "--from", "2020-01-01", "--to", "2100-01-01"], env);
      expect(exported.split("\n")[0]).toMatch(/entry_id/);
      await runCliRefused(["ledger", "export", "--from", "yesterday", "--to", "2100-01-01"], env, ["--from"]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
