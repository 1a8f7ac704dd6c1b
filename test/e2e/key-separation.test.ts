import { existsSync } from "node:fs";
import { join } from "node:path";
import { createCustody, SANDBOX_MNEMONIC_FILE } from "@mp/custody";
import { english, generateMnemonic } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { runCli, startRole, startService } from "../cli/run-cli.ts";
import { eventually } from "../support/api-harness.ts";
import { useTempDir, useTestDatabase } from "../support/test-database.ts";
import { POSTGRES_ONLY, stopProcess } from "./several-processes.ts";

const TIMEOUT_MS = 240_000;

/** The envelope fields these requests read (a customer or a wallet; `error` on failures). */
interface Answer {
  status: number;
  body: {
    status: string;
    error: string;
    data: { id: string; destinations: Array<{ chain: string; address: string }> };
  };
}

async function post(url: string, apiKey: string, path: string, json: unknown, key: string): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "x-service-api-key": apiKey, "content-type": "application/json", "x-idempotency-key": key },
    body: JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

/**
 * Issue 14 "Keys and roles": only the signer holds MASTER_MNEMONIC. An API process started with the
 * mnemonic unset and its file unreadable still creates wallets, with exactly the addresses the
 * mnemonic derives, from the public keys and Solana pool the signer stored; the signer itself refuses
 * to start without the mnemonic.
 */
// A signer and an API process on one database at once: like the other several-process tests, it needs
// a server (a spawned process joining the test's embedded PGlite shares one session with the others).
describe.skipIf(!process.env.DATABASE_URL)(
  `key separation: the API role serves wallets without any private key material ${POSTGRES_ONLY}`,
  () => {
    const database = useTestDatabase();
    const dir = useTempDir("mpkeys-");
    const mnemonic = generateMnemonic(english, 256);
    const missing = join(dir, "no-such-dir", "master-mnemonic");

    it(
      "signer refuses without MASTER_MNEMONIC; api without it creates the mnemonic's addresses, 503 once the pool is dry, and the signer refills it",
      async () => {
        const dataDir = join(dir, "data");
        const base = { DATABASE_URL: database.connectionString, DATA_DIR: dataDir };
        // No mnemonic readable: what every non-signer process below gets.
        const keyless = { ...base, MASTER_MNEMONIC: undefined, MASTER_MNEMONIC_FILE: missing };

        const refused = await runCli(["serve", "--role", "signer"], keyless);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain("MASTER_MNEMONIC_FILE");

        const signerEnv = { ...base, MASTER_MNEMONIC: mnemonic };
        let signer = await startRole(["--role", "signer"], signerEnv, /signer started/);
        let api: Awaited<ReturnType<typeof startService>> | undefined;
        try {
          // The signer filled the pools before it said it started: the merchant's account is stored,
          // so creating it needs no mnemonic either.
          const created = await runCli(["merchants", "create", "--name", "Keyless", "--json"], keyless);
          expect(created.code, created.stderr).toBe(0);
          const { merchant_id: merchantId, api_key: apiKey } = JSON.parse(created.stdout);
          const account = (
            await database.db.query<{ derivation_account: number }>(
              "SELECT derivation_account FROM merchants WHERE id = $1",
              [merchantId],
            )
          ).rows[0]?.derivation_account;
          expect(account).toBe(0);

          // Steady state without the signer: the API never waits on it.
          await stopProcess(signer.child);
          api = await startService(["--role", "api"], { ...keyless, PORT: "0" });
          const customer = await post(
            api.url,
            apiKey,
            "/v1/customers",
            { type: "INDIVIDUAL", first_name: "Kay", last_name: "Less" },
            "customer",
          );
          expect(customer.status, JSON.stringify(customer.body)).toBe(202);
          const customerId = customer.body.data.id;

          const expected = createCustody(mnemonic, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
          const wallet = await post(api.url, apiKey, "/v1/wallets", { customer_id: customerId, label: "w0" }, "w0");
          expect(wallet.status, JSON.stringify(wallet.body)).toBe(201);
          expect(wallet.body.data.destinations.map((d) => [d.chain, d.address])).toEqual(
            expected.deriveWalletAddresses(0, 0).map((d) => [d.chain, d.address]),
          );

          // The pool holds 64 Solana addresses per account: past them, a retryable 503, never a wrong address.
          let made = 1;
          let dry: Answer | undefined;
          for (; made < 200 && !dry; made++) {
            const next = await post(
              api.url,
              apiKey,
              "/v1/wallets",
              { customer_id: customerId, label: "w" },
              `w${made}`,
            );
            if (next.status !== 201) dry = next;
          }
          expect(dry?.status).toBe(503);
          expect(dry?.body).toMatchObject({ error: "service_unavailable", status: "error" });
          expect(made - 1).toBe(64);
          // The shortage is logged (and counted in payments_custody_pool_shortages_total).
          await eventually(async () => api?.output().includes('"pool":"solana"') || undefined);
          expect(api.output()).toContain("custody pool empty");
          const metrics = await (await fetch(`${api.url}/metrics`)).text();
          expect(metrics).toMatch(/payments_custody_pool_shortages_total\{pool="solana"\} [1-9]/);
          const stored = await database.db.query<{ chain: string; address: string; derivation_path: string }>(
            "SELECT chain, address, derivation_path FROM destinations WHERE merchant_id = $1 AND chain = 'SOLANA'",
            [merchantId],
          );
          expect(stored.rows).toHaveLength(64);
          for (const row of stored.rows) {
            const index = Number(/\/(\d+)'$/.exec(row.derivation_path)?.[1]);
            expect(row.address).toBe(expected.deriveAddress("SOLANA", 0, index).address);
          }

          // The signer back: it refills the pool, the same request then succeeds.
          signer = await startRole(["--role", "signer"], signerEnv, /signer started/);
          const after = await eventually(
            async () => {
              const retried = await post(
                api?.url ?? "",
                apiKey,
                "/v1/wallets",
                { customer_id: customerId, label: "w" },
                "again",
              );
              return retried.status === 201 ? retried : undefined;
            },
            30_000,
            500,
          );
          expect(after.body.data.destinations.length).toBe(10);
        } finally {
          await stopProcess(api?.child);
          await stopProcess(signer.child);
        }
        // No process without the signer role ever resolved a master mnemonic: none was generated here.
        expect(existsSync(join(dataDir, SANDBOX_MNEMONIC_FILE))).toBe(false);
      },
      TIMEOUT_MS,
    );
  },
);
