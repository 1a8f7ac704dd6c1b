import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startService, waitForExit } from "../cli/run-cli.ts";
import { eventually } from "../support/api-harness.ts";

/**
 * The README's story against the real process: `payments serve --role all` with no CHAINS_CONFIG
 * starts the local sandbox chains (an anvil per EVM chain, the Bitcoin, Solana and Tron test nodes),
 * and a sandbox deposit on each family arrives through the indexer, confirms and reaches the balance.
 */
describe("the local sandbox, end to end through the service process", () => {
  let database: TestDatabase;
  let dataDir: string;
  let service: Awaited<ReturnType<typeof startService>>;
  let env: Record<string, string | undefined>;
  let key: string;

  const call = async (path: string, init: { body?: unknown; idempotencyKey?: string; apiKey?: string } = {}) => {
    const headers: Record<string, string> = { "x-service-api-key": init.apiKey ?? key };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    if (init.idempotencyKey) headers["x-idempotency-key"] = init.idempotencyKey;
    const response = await fetch(`${service.url}${path}`, {
      method: init.body === undefined ? "GET" : "POST",
      headers,
      body: init.body === undefined ? null : JSON.stringify(init.body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "mpe2e-"));
    database = await createTestDatabase({ migrate: false });
    env = { DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ? database.connectionString : undefined };
    service = await startService(["--role", "all"], { ...env, PORT: "0", LOG_LEVEL: "info" });
    const created = await runCli(["merchants", "create", "--name", "Story", "--json"], env);
    expect(created.code, created.stderr).toBe(0);
    key = JSON.parse(created.stdout).api_key;
  });
  afterAll(async () => {
    if (service) {
      service.child.kill("SIGTERM");
      await waitForExit(service.child, 30_000);
    }
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("customer -> wallet -> sandbox deposits on four chain families -> CONFIRMED -> balance", async () => {
    const chains = await call("/v1/chains");
    expect(chains.body.data.items.every((c: { deposits_enabled: boolean }) => c.deposits_enabled)).toBe(true);

    const customer = await call("/v1/customers", {
      idempotencyKey: "c-1",
      body: { type: "INDIVIDUAL", first_name: "Ada", last_name: "Lovelace" },
    });
    expect(customer.status).toBe(202);
    const wallet = await call("/v1/wallets", {
      idempotencyKey: "w-1",
      body: { customer_id: customer.body.data.id, label: "main" },
    });
    expect(wallet.status).toBe(201);
    const address = (chain: string) =>
      wallet.body.data.destinations.find((d: { chain: string }) => d.chain === chain).address as string;

    const sends = [
      { chain: "BASE", asset: "USDC", amount: "25.00", usd: "25.000000" },
      { chain: "SOLANA", asset: "USDC", amount: "10", usd: "10.000000" },
      { chain: "TRON", asset: "USDT", amount: "7.5", usd: "7.500000" },
      { chain: "BITCOIN", asset: "BTC", amount: "0.001", usd: null },
      // A native coin on another EVM chain: same address, its own chain and its own deposit.
      { chain: "ARBITRUM", asset: "ETH", amount: "0.5", usd: null },
    ];
    for (const send of sends) {
      const sent = await call("/v1/sandbox/deposits", {
        idempotencyKey: `d-${send.chain}`,
        body: { address: address(send.chain), asset: send.asset, amount: send.amount, chain: send.chain },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      expect(sent.body.data.chain).toBe(send.chain);
    }

    const live = (await call("/v1/balance")).body.data;
    expect(live.currency).toBe("USD");

    const confirmed = await eventually(
      async () => {
        const list = await call(`/v1/deposits?wallet_id=${wallet.body.data.id}&status=CONFIRMED`);
        const items = list.body.data.items as Array<Record<string, any>>;
        return items.length < sends.length ? undefined : items;
      },
      60_000,
      500,
    );
    for (const send of sends) {
      const deposit = confirmed.find((d) => d.chain === send.chain);
      expect(deposit, send.chain).toMatchObject({ asset: send.asset, status: "CONFIRMED" });
      if (send.usd) expect(deposit?.amount_usd).toBe(send.usd);
      expect(deposit?.confirmations).toBeGreaterThanOrEqual(deposit?.required_confirmations);
    }
    const net = confirmed.reduce((sum, d) => sum + Math.round(Number(d.net_amount_usd) * 1e6), 0);
    const balance = (await call("/v1/balance")).body.data;
    expect(Math.round(Number(balance.available) * 1e6)).toBe(net);
    expect(balance.pending).toBe("0.000000");

    const check = await runCli(["ledger", "check"], env);
    expect(check.code, check.stdout).toBe(0);
  });

  it("refuses sandbox deposits to production keys", async () => {
    const live = await runCli(["merchants", "create", "--name", "Live", "--environment", "production", "--json"], env);
    const apiKey = JSON.parse(live.stdout).api_key;
    const refused = await call("/v1/sandbox/deposits", {
      apiKey,
      idempotencyKey: "x",
      body: { address: "0x0000000000000000000000000000000000000001", asset: "USDC", amount: "1" },
    });
    expect(refused.status).toBe(403);
  });
});
