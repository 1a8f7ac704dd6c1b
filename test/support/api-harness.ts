import { randomBytes } from "node:crypto";
import type { Server } from "node:http";
import {
  type AppDeps,
  createApp,
  createMerchant,
  KYC_AND_BANKING_QUEUES,
  keepIdleConnections,
  PROVISION_CUSTOMER_JOB,
  provisionCustomer,
  registerKycAndBankingWorkers,
  WalletSlots,
} from "@mp/api";
import { loadConfig, silentLogger } from "@mp/core";
import { createCustody } from "@mp/custody";
import { createDatabase, type Database } from "@mp/db";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { createEncryptionKeyring } from "@mp/encryption";
import { createJobQueue, type JobQueue } from "@mp/jobs";
import {
  createListScreeningProvider,
  createSandboxBankingProvider,
  createSandboxKycProvider,
  createSandboxRateProvider,
} from "@mp/providers";
import { Registry } from "prom-client";
import { afterAll, beforeAll, expect } from "vitest";
import { isChainAddress, KEY_SCHEMES, paymentUriOf } from "../../services/payments/src/chain-families.ts";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import { late } from "./late.ts";

export { eventually } from "./eventually.ts";

/** Hardhat/anvil's well-known development mnemonic: test addresses are public and worthless. */
export const TEST_MNEMONIC = "test test test test test test test test test test test junk";

let testCustody: ReturnType<typeof createCustody> | undefined;
function custody() {
  testCustody ??= createCustody(TEST_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  return testCustody;
}

export interface TestMerchant {
  merchantId: string;
  apiKey: string;
  keyPrefix: string;
}

export interface ApiHarness {
  url: string;
  db: Database;
  testDb: TestDatabase;
  deps: AppDeps;
  merchant(environment?: "sandbox" | "production"): Promise<TestMerchant>;
  /** fetch against the app with the key in X-Service-API-Key. */
  call(
    key: string | undefined,
    path: string,
    init?: RequestInit & { idempotencyKey?: string; json?: unknown },
  ): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  /** Expects each of `queries` on the list `path` answered 400 validation_error naming the parameter. */
  expectQueriesRefused(key: string, path: string, queries: readonly string[]): Promise<void>;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** Run the background workers in this process (customer provisioning etc.). */
  workers?: boolean;
  /** Replaces dependencies; a function gets the test database (for providers that keep state there). */
  overrides?: Partial<AppDeps> | ((db: Database) => Partial<AppDeps>);
  /** Reach the fresh database through another address (e.g. a proxy the test can cut). */
  wrapConnection?: (connectionString: string) => Promise<string>;
}

export async function startApiHarness(options: HarnessOptions = {}): Promise<ApiHarness> {
  // As `payments serve` does at start: checkLedger runs every domain's checks (the transfers').
  registerLedgerChecks();
  const testDb = await createTestDatabase();
  const db = options.wrapConnection
    ? createDatabase({
        connectionString: await options.wrapConnection(testDb.connectionString),
        engine: testDb.db.engine,
        max: 10,
      })
    : testDb.db;
  const logger = silentLogger();
  const jobs: JobQueue = await createJobQueue({
    db: testDb.db,
    logger,
    queues: [PROVISION_CUSTOMER_JOB, ...KYC_AND_BANKING_QUEUES],
  });
  const addresses = {
    deriveWalletAddresses: (account: number, index: number) => custody().deriveWalletAddresses(account, index),
  };
  const deps: AppDeps = {
    db,
    logger,
    environment: "sandbox",
    chains: {},
    jobs,
    rates: createSandboxRateProvider(),
    addresses,
    // Sandbox providers decide in ~100 ms so tests of the asynchronous flows stay fast.
    kyc: createSandboxKycProvider({ reviewDelayMs: 100 }),
    banking: createSandboxBankingProvider({ activationDelayMs: 100 }),
    // The sandbox's screening: its magic address only (tests of the real list give their own).
    sanctions: await createListScreeningProvider({ path: null, sandbox: true, logger }),
    encryption: createEncryptionKeyring({ current: randomBytes(32) }),
    metrics: new Registry(),
    faucets: {},
    rateLimitPerMinute: 100_000,
    transfers: loadConfig({}).transfers,
    paymentRequests: loadConfig({}).paymentRequests,
    paymentUri: paymentUriOf,
    isChainAddress,
    indexerStates: async () => [],
    walletSlots: new WalletSlots(db, addresses),
    ...(typeof options.overrides === "function" ? options.overrides(testDb.db) : options.overrides),
  };
  if (options.workers) {
    await jobs.work<{ customerId: string }>(PROVISION_CUSTOMER_JOB, (data) => provisionCustomer(deps, data));
    await registerKycAndBankingWorkers(jobs, deps);
  }
  const app = createApp(deps);
  const server = await new Promise<Server>((resolve) => {
    const s = keepIdleConnections(app.listen(0, "127.0.0.1", () => resolve(s)));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  // Hosted pages' links point at this app (unless a test set its own PUBLIC_URL).
  if (deps.paymentRequests.publicUrl === loadConfig({}).paymentRequests.publicUrl) {
    deps.paymentRequests = { ...deps.paymentRequests, publicUrl: url };
  }

  const harness: ApiHarness = {
    url,
    db,
    testDb,
    deps,
    async merchant(environment = "sandbox") {
      const created = await createMerchant(testDb.db, {
        name: `m-${Math.random().toString(36).slice(2, 8)}`,
        environment,
      });
      return { merchantId: created.merchantId, apiKey: created.key.apiKey, keyPrefix: created.key.prefix };
    },
    call: (key, path, init) => callApi(url, key, path, init),
    async expectQueriesRefused(key, path, queries) {
      for (const query of queries) {
        const res = await harness.call(key, `${path}?${query}`);
        expect(res.status, query).toBe(400);
        expect(res.body, query).toMatchObject({ status: "error", error: "validation_error" });
        expect(res.body.message, query).toContain(query.split("=")[0]);
      }
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs.stop();
      if (db !== testDb.db) await db.close();
      await testDb.drop();
    },
  };
  return harness;
}

/** fetch against a running API at `url` (an in-process harness or a `payments serve` process), as ApiHarness.call. */
export async function callApi(
  url: string,
  key: string | undefined,
  path: string,
  init: RequestInit & { idempotencyKey?: string; json?: unknown } = {},
): ReturnType<ApiHarness["call"]> {
  const headers = new Headers(init.headers);
  if (key !== undefined) headers.set("X-Service-API-Key", key);
  if (init.idempotencyKey !== undefined) headers.set("X-Idempotency-Key", init.idempotencyKey);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  const response = await fetch(`${url}${path}`, { ...init, headers, body: body ?? null });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, headers: response.headers, text };
}

/**
 * The opening most API test files share: one harness (see startApiHarness) and one merchant for
 * the calling describe block, started in its beforeAll and stopped in its afterAll. `api` and
 * `merchant` stand for them from the start, so a test reads them as plain variables.
 */
export function useApiHarness(options: HarnessOptions = {}): { api: ApiHarness; merchant: TestMerchant } {
  let started: { api: ApiHarness; merchant: TestMerchant } | undefined;
  beforeAll(async () => {
    const api = await startApiHarness(options);
    started = { api, merchant: await api.merchant() };
  });
  afterAll(() => started?.api.stop());
  return { api: late("the API harness", () => started?.api), merchant: late("the merchant", () => started?.merchant) };
}
