/**
 * Indexer catch-up figures on EVM: 20,000 ERC-20 transfers over 1,000 blocks on anvil (2,000 of
 * them to watched addresses), a watch set of 1,000,000 destinations in the database, measured end
 * to end: RPC -> adapter -> deposits -> confirmations -> ledger credits. Prints, never asserts.
 *   npx tsx packages/indexer/bench/indexer.ts [--transfers N] [--blocks N] [--watched N]
 * Uses the PostgreSQL server named by DATABASE_URL when set, else an in-memory PGlite.
 */
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import { createEvmAdapter } from "@mp/chain-evm";
import { type ChainId, chainIdSchema, isEvmChain, resolveChainConfig, silentLogger } from "@mp/core";
import { createWatchSet } from "@mp/custody";
import type { Database } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import { createSandboxRateProvider } from "@mp/providers";
import { deployTestToken, seedTransfers, startAnvil } from "@mp/test-nodes/evm";
import { getAddress } from "viem";
import { createIndexer } from "../src/index.ts";

export interface IndexerBenchOptions {
  /** An EVM chain id (default BASE); the run is on anvil whichever is named. */
  chain?: string;
  transfers?: number;
  blocks?: number;
  /** Destinations in the database (the watch set); the seeded recipients are the first 100 of them. */
  watched?: number;
}

const RECIPIENTS = 100;
const addressOf = (i: number) => getAddress(`0x${i.toString(16).padStart(40, "0")}`);

/** `watched` destinations on `chain` for one merchant, written with set-based SQL. */
async function insertDestinations(db: Database, chain: ChainId, watched: number): Promise<void> {
  const merchantId = randomUUID();
  const customerId = randomUUID();
  await db.query(
    `INSERT INTO merchants (id, name, environment, derivation_account)
     SELECT $1, 'Bench', 'sandbox', coalesce(max(derivation_account) + 1, 0) FROM merchants`,
    [merchantId],
  );
  await db.query("INSERT INTO customers (id, merchant_id, type, status) VALUES ($1, $2, 'INDIVIDUAL', 'APPROVED')", [
    customerId,
    merchantId,
  ]);
  const chunk = 100_000;
  for (let from = 1; from <= watched; from += chunk) {
    const to = Math.min(watched, from + chunk - 1);
    await db.query(
      `INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index)
       SELECT md5('bench-wallet-' || i)::uuid, $1, $2, 'bench', i FROM generate_series($3::int, $4::int) AS i`,
      [merchantId, customerId, from, to],
    );
    await db.query(
      `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path)
       SELECT md5('bench-destination-' || i)::uuid, md5('bench-wallet-' || i)::uuid, $1, $2,
              '0x' || lpad(to_hex(i), 40, '0'), '0x' || lpad(to_hex(i), 40, '0'), 'm/bench/' || i
         FROM generate_series($3::int, $4::int) AS i`,
      [merchantId, chain, from, to],
    );
  }
}

export async function runIndexerBench(options: IndexerBenchOptions = {}): Promise<void> {
  const parsed = chainIdSchema.safeParse((options.chain ?? "BASE").toUpperCase());
  if (!parsed.success || !isEvmChain(parsed.data)) {
    process.stdout.write(`\nindexer bench: runs on EVM chains only; ${options.chain} skipped\n`);
    return;
  }
  const chain = parsed.data;
  const transfers = options.transfers ?? 20_000;
  const blocks = options.blocks ?? 1_000;
  const watched = options.watched ?? 1_000_000;
  const testDb = await createTestDatabase();
  const node = await startAnvil({ chainId: 8453 });
  try {
    const db = testDb.db;
    const usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
    const config = resolveChainConfig(chain, {
      rpcUrl: node.url,
      tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
      pollIntervalMs: 100,
    });

    let started = performance.now();
    await insertDestinations(db, chain, watched);
    const insertMs = performance.now() - started;

    started = performance.now();
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => addressOf(i + 1));
    const seeded = await seedTransfers(node, usdc, { transfers, blocks, recipients });
    // Enough blocks on top for every deposit to reach its confirmations.
    await node.mine(config.confirmations);
    const seedMs = performance.now() - started;

    const watch = createWatchSet(db, chain);
    started = performance.now();
    await watch.refresh();
    const watchLoadMs = performance.now() - started;

    const indexer = createIndexer({
      db,
      adapter: createEvmAdapter(config),
      config: { ...config, startHeight: seeded.fromBlock },
      watch,
      rates: createSandboxRateProvider(),
      logger: silentLogger(),
    });
    let peakRss = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 50);
    let scanMs = 0;
    let seen = 0;
    let confirmed = 0;
    started = performance.now();
    for (;;) {
      const tickStarted = performance.now();
      const result = await indexer.tick();
      if (result.scanned) scanMs += performance.now() - tickStarted;
      seen += result.depositsSeen;
      confirmed += result.depositsConfirmed;
      if (result.caughtUp && result.depositsConfirmed === 0) break;
    }
    const totalMs = performance.now() - started;
    clearInterval(sampler);
    await indexer.stop();

    const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
    const perSecond = (count: number, ms: number) => Math.round((count * 1000) / ms).toLocaleString("en");
    const scannedBlocks = seeded.toBlock - seeded.fromBlock + 1 + config.confirmations;
    process.stdout.write(
      `\nindexer: ${chain} catch-up, ${transfers.toLocaleString("en")} transfers in ${blocks} blocks, ` +
        `${watched.toLocaleString("en")} watched addresses, ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}\n`,
    );
    console.table([
      { step: "insert destinations (SQL)", ms: Math.round(insertMs) },
      { step: "seed transfers on anvil", ms: Math.round(seedMs) },
      { step: "load watch set", ms: Math.round(watchLoadMs), addresses: watch.size },
      {
        step: "ticks that scanned (scan, record, confirm due)",
        ms: Math.round(scanMs),
        "blocks/s": perSecond(scannedBlocks, scanMs),
        "transfers/s": perSecond(transfers, scanMs),
      },
      {
        step: "end to end (scan, record, confirm, credit)",
        ms: Math.round(totalMs),
        "blocks/s": perSecond(scannedBlocks, totalMs),
        "transfers/s": perSecond(transfers, totalMs),
        "credits/s": perSecond(confirmed, totalMs),
      },
    ]);
    process.stdout.write(
      `deposits recorded ${seen} (expected ${seeded.watchedTransfers}), confirmed ${confirmed}; ` +
        `RSS now ${mb(process.memoryUsage().rss)}, peak ${mb(peakRss)}\n`,
    );
  } finally {
    await node.stop();
    await testDb.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const flag = (key: string) => {
    const i = process.argv.indexOf(`--${key}`);
    const value = i >= 0 ? process.argv[i + 1] : undefined;
    return value === undefined ? undefined : Number(value);
  };
  const transfers = flag("transfers");
  const blocks = flag("blocks");
  const watched = flag("watched");
  await runIndexerBench({
    ...(transfers === undefined ? {} : { transfers }),
    ...(blocks === undefined ? {} : { blocks }),
    ...(watched === undefined ? {} : { watched }),
  });
  process.exit(0);
}
