import { randomUUID } from "node:crypto";
import { type ChainAdapter, type ChainId, normalizeAddress, silentLogger } from "@mp/core";
import { createWatchSet } from "@mp/custody";
import type { Database, Queryable } from "@mp/db";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { createIndexer, type Indexer, type IndexerMetrics, type TickResult } from "@mp/indexer";
import { checkLedger, getMerchantBalance } from "@mp/ledger";
import { createSandboxRateProvider, type RateProvider } from "@mp/providers";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import { insertMerchantWithCustomer } from "../support/db-fixtures.ts";
import { eventually } from "../support/eventually.ts";
import { late } from "../support/late.ts";
import type { TestChain } from "./test-chains.ts";

export interface TestMerchant {
  merchantId: string;
  customerId: string;
  feeBps: number;
  feeFixedMicros: bigint;
}

/** A merchant (with a customer) inserted as the API would; fees as given. */
export async function createMerchant(
  db: Database,
  fees: { feeBps?: number; feeFixedMicros?: bigint } = {},
): Promise<TestMerchant> {
  const feeBps = fees.feeBps ?? 150;
  const feeFixedMicros = fees.feeFixedMicros ?? 25_000n;
  const ids = await db.tx(async (c) => {
    // Merchants created concurrently would otherwise take the same derivation account.
    await c.query("SELECT pg_advisory_xact_lock(4243)");
    return insertMerchantWithCustomer(c, "Indexer test", { feeBps, feeFixedMicros });
  });
  return { ...ids, feeBps, feeFixedMicros };
}

/** Rejects the merchant's customer as refreshCustomerVerification writes it: its deposits are then held. */
export async function rejectCustomer(db: Queryable, merchant: { customerId: string }): Promise<void> {
  await db.query(
    `UPDATE customers SET status = 'REJECTED', capabilities = '{"crypto_deposits":false,"virtual_accounts":false,"payouts":false}'
      WHERE id = $1`,
    [merchant.customerId],
  );
}

/** A wallet of the merchant with one destination: `address` on `chain`. */
export async function addWallet(
  db: Database,
  merchant: TestMerchant,
  chain: ChainId,
  address: string,
): Promise<{ walletId: string; destinationId: string }> {
  return db.tx((c) => insertWallet(c, merchant, chain, address));
}

/** addWallet's statements, in the caller's transaction. */
export async function insertWallet(
  c: Queryable,
  merchant: TestMerchant,
  chain: ChainId,
  address: string,
): Promise<{ walletId: string; destinationId: string }> {
  const walletId = randomUUID();
  const destinationId = randomUUID();
  await c.query(
    `INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index)
       SELECT $1, $2, $3, 'test', coalesce(max(derivation_index) + 1, 0) FROM wallets WHERE merchant_id = $2`,
    [walletId, merchant.merchantId, merchant.customerId],
  );
  await c.query(
    `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path, provisioned_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'm/test', now())`,
    [destinationId, walletId, merchant.merchantId, chain, address, normalizeAddress(chain, address)],
  );
  return { walletId, destinationId };
}

export interface DepositRow {
  id: string;
  merchant_id: string;
  wallet_id: string;
  customer_id: string | null;
  tx_hash: string;
  to_address: string;
  asset: string;
  status: "PENDING" | "CONFIRMED" | "REVERSED";
  block_height: string;
  amount_raw: string;
  required_confirmations: number;
  usd_rate: string | null;
  usd_rate_at: Date | null;
  amount_usd_micros: string | null;
  fee_usd_micros: string | null;
  net_amount_usd_micros: string | null;
  credit_entry_id: string | null;
  reversal_entry_id: string | null;
  confirmed_at: Date | null;
  reversed_at: Date | null;
}

export async function depositsOf(db: Database, merchantId: string): Promise<DepositRow[]> {
  const { rows } = await db.query<DepositRow>(
    "SELECT * FROM deposits WHERE merchant_id = $1 ORDER BY created_at, block_height, id",
    [merchantId],
  );
  return rows;
}

/** Journal entries (kind, reference) referring to `depositId`. */
export async function entriesFor(db: Database, depositId: string): Promise<Array<{ id: string; kind: string }>> {
  const { rows } = await db.query<{ id: string; kind: string }>(
    "SELECT id, kind FROM journal_entries WHERE reference = $1 ORDER BY created_at, kind",
    [depositId],
  );
  return rows;
}

export async function availableOf(db: Database, merchantId: string): Promise<bigint> {
  return (await getMerchantBalance(db, merchantId)).available;
}

export async function expectLedgerOk(db: Database): Promise<void> {
  registerLedgerChecks(); // the transfers' checks too, as `payments ledger check` runs them
  const check = await checkLedger(db);
  expect(check.problems).toEqual([]);
  expect(check.ok).toBe(true);
}

export function expectedFee(merchant: TestMerchant, amountUsd: bigint): bigint {
  const variable = (amountUsd * BigInt(merchant.feeBps) + 5_000n) / 10_000n;
  const fee = variable + merchant.feeFixedMicros;
  return fee > amountUsd ? amountUsd : fee;
}

/**
 * The chain's real adapter behind a load-balanced pool whose backend lags: while `lag.blocks` > 0,
 * head() answers that many blocks below the node's head (every other call reaches the node).
 */
export function laggingAdapter(inner: ChainAdapter, lag: { blocks: number }): ChainAdapter {
  return {
    chain: inner.chain,
    head: async () => (await inner.head()) - lag.blocks,
    headers: (range) => inner.headers(range),
    scan: (range, watch) => inner.scan(range, watch),
    verifyNetwork: () => inner.verifyNetwork(),
  };
}

type IndexerExtras = {
  leaseSeconds?: number;
  /** Default: the sandbox's fixed rates. */
  rates?: RateProvider;
  metrics?: IndexerMetrics;
  failpoint?: (name: string) => void | Promise<void>;
  adapter?: ChainAdapter;
};

export function newIndexer(
  db: Database,
  chain: Pick<TestChain, "chain" | "config" | "adapter">,
  extra: IndexerExtras = {},
): Indexer {
  return createIndexer({
    db,
    adapter: extra.adapter ?? chain.adapter(),
    config: chain.config,
    watch: createWatchSet(db, chain.chain),
    rates: createSandboxRateProvider(),
    logger: silentLogger(),
    ...extra,
  });
}

/** Ticks until the indexer has scanned up to the node's head (rolling back reorgs on the way). */
export async function catchUp(indexer: Indexer, maxTicks = 100): Promise<TickResult> {
  for (let i = 0; i < maxTicks; i++) {
    const result = await indexer.tick();
    if (!result.active) throw new Error("indexer is not holding its chain lock");
    if (result.caughtUp && result.reorgAncestor === null) return result;
  }
  throw new Error(`indexer did not catch up in ${maxTicks} ticks`);
}

/** Polls `check` every 50 ms until it returns a value that is not undefined/false, or fails after `timeoutMs`. */
export function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  return eventually(
    async () => {
      const value = await check();
      return value === false ? undefined : value;
    },
    timeoutMs,
    50,
    what,
  );
}

export interface IndexerSuite {
  /** The suite's database and chain, usable inside its tests (set up in beforeAll). */
  db: Database;
  chain: TestChain;
  /** An indexer on the suite's chain, stopped after the test. */
  startIndexer(extra?: IndexerExtras): Indexer;
}

/**
 * A describe block's set-up for indexer tests: a fresh database and a started chain (in parallel,
 * beforeAll); after each test the indexers from startIndexer stop and the ledger must balance; after
 * the block the chain closes and the database is dropped.
 */
export function useIndexerSuite(start: () => Promise<TestChain>): IndexerSuite {
  let testDb: TestDatabase | undefined;
  let chain: TestChain | undefined;
  const running: Indexer[] = [];
  beforeAll(async () => {
    [testDb, chain] = await Promise.all([createTestDatabase(), start()]);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((indexer) => indexer.stop()));
    if (testDb) await expectLedgerOk(testDb.db);
  });
  afterAll(async () => {
    await chain?.close();
    await testDb?.drop();
  });
  const suite: IndexerSuite = {
    db: late("the test database", () => testDb?.db),
    chain: late("the test chain", () => chain),
    startIndexer(extra) {
      const indexer = newIndexer(suite.db, suite.chain, extra);
      running.push(indexer);
      return indexer;
    },
  };
  return suite;
}
