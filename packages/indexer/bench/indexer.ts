import { type ChildProcess, fork } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type ChainId, chainIdSchema, isEvmChain, resolveChainConfig } from "@mp/core";
import type { Database } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import {
  type AnvilNode,
  deployTestToken,
  seedTransfers,
  startAnvil,
  type TestToken,
  transferToken,
} from "@mp/test-nodes/evm";
import { getAddress } from "viem";
import { bundleEntry } from "../../../services/payments/scripts/build.mjs";
import { printTable } from "../../../test/bench/measure.ts";
import { insertMerchantWithCustomer } from "../../../test/support/db-fixtures.ts";
import type { IndexerProcessReport, IndexerProcessStart } from "./indexer-process.ts";

export interface IndexerBenchOptions {
  /** An EVM chain id (default BASE); the run is on anvil whichever is named. */
  chain?: string;
  transfers?: number;
  blocks?: number;
  /** Destinations in the database (the watch set); the seeded recipients are the first 100 of them. */
  watched?: number;
  /** A folder for a CPU profile of the indexer process's catch-up (`indexer-catch-up-<pid>.cpuprofile`). */
  cpuProf?: string;
}

const RECIPIENTS = 100;
const addressOf = (i: number) => getAddress(`0x${i.toString(16).padStart(40, "0")}`);

/**
 * `watched` destinations on `chain` for one merchant, written with set-based SQL and dated a day
 * back: a catch-up meets addresses created long before.
 */
async function insertDestinations(db: Database, chain: ChainId, watched: number): Promise<void> {
  const { merchantId, customerId } = await insertMerchantWithCustomer(db, "Bench");
  // Ids ascending with i (not md5-random): every index on wallets and destinations is appended to at
  // its right edge instead of touched at random pages. The rows reference only what was just
  // inserted (ids computed the same way), so the per-row foreign-key triggers are skipped for this
  // setup transaction (session_replication_role = replica): half the insert's time.
  const chunk = 250_000;
  await db.tx(async (client) => {
    await client.query("SET LOCAL session_replication_role = replica");
    for (let from = 1; from <= watched; from += chunk) {
      const to = Math.min(watched, from + chunk - 1);
      await client.query(
        `INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index, created_at)
         SELECT ('b0000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, $1, $2, 'bench', i,
                now() - interval '1 day'
           FROM generate_series($3::int, $4::int) AS i`,
        [merchantId, customerId, from, to],
      );
      await client.query(
        `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path, created_at)
         SELECT ('d0000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid,
                ('b0000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, $1, $2,
                '0x' || lpad(to_hex(i), 40, '0'), '0x' || lpad(to_hex(i), 40, '0'), 'm/bench/' || i,
                now() - interval '1 day'
           FROM generate_series($3::int, $4::int) AS i`,
        [merchantId, chain, from, to],
      );
    }
  });
}

/** Pauses between the blocks mined one by one in the latency probe. */
const BLOCK_GAP_MS = 100;
const LATENCY_SAMPLES = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * With the indexer's own loop running at its poll interval: pays a watched address, mines the
 * deposit's confirmations one block at a time and measures from the confirming block until the
 * deposit reads CONFIRMED in the database (polled every 20 ms), which is what the API serves.
 * A random pause before each payment spreads the samples over the poll cycle.
 */
async function measureConfirmationDelays(
  db: Database,
  node: AnvilNode,
  token: TestToken,
  confirmations: number,
): Promise<number[]> {
  const delays: number[] = [];
  for (let sample = 0; sample < LATENCY_SAMPLES; sample++) {
    await sleep(Math.random() * 1000);
    const paid = await transferToken(node, token, addressOf(1), 7_000_000n + BigInt(sample));
    let confirmingAt = performance.now();
    // The deposit's own block is its first confirmation.
    for (let i = 1; i < confirmations; i++) {
      await sleep(BLOCK_GAP_MS);
      confirmingAt = performance.now();
      await node.mine(1);
    }
    for (;;) {
      const { rows } = await db.query<{ status: string }>("SELECT status FROM deposits WHERE tx_hash = $1", [
        paid.txHash,
      ]);
      if (rows[0]?.status === "CONFIRMED") break;
      if (performance.now() - confirmingAt > 30_000) throw new Error(`deposit ${paid.txHash} not confirmed in 30 s`);
      await sleep(20);
    }
    delays.push(performance.now() - confirmingAt);
  }
  return delays;
}

interface IndexerProcess {
  /** The next report, which must be of `type`; a failure or an exit rejects. */
  next<T extends IndexerProcessReport["type"]>(type: T): Promise<Extract<IndexerProcessReport, { type: T }>>;
  send(message: { type: "stop" }): void;
  /** Asks it to stop if it still listens, waits for the exit (kills it after 10 s). */
  close(): Promise<void>;
}

/** A folder of this run's own: a bench started beside it does not overwrite the module it forks. */
const BUNDLE_DIR = fileURLToPath(new URL(`../../../.tmp/bench/indexer-process-${process.pid}/`, import.meta.url));

function bundleIndexerProcess(): Promise<string> {
  return bundleEntry(fileURLToPath(new URL("./indexer-process.ts", import.meta.url)), BUNDLE_DIR);
}

/**
 * indexer-process.ts compiled as `payments` is (bundleEntry) and started with plain node and no
 * inherited flags: the parent runs under tsx, whose loader would otherwise be handed down.
 */
async function startIndexerProcess(module: string, start: IndexerProcessStart): Promise<IndexerProcess> {
  const child: ChildProcess = fork(module, [], {
    execArgv: [],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // A message to a process that just died fails with EPIPE, emitted here: its exit is what counts,
  // and the report it sent before (next() throws with its error) says why.
  child.on("error", () => undefined);
  const queue: IndexerProcessReport[] = [];
  let waiting: (() => void) | undefined;
  child.on("message", (message) => {
    queue.push(message as IndexerProcessReport);
    waiting?.();
  });
  child.send(start);
  return {
    async next(type) {
      for (;;) {
        const report = queue.shift();
        if (report?.type === "failed") throw new Error(`indexer process failed: ${report.error}`);
        if (report) {
          if (report.type !== type) throw new Error(`indexer process reported ${report.type}, expected ${type}`);
          return report as Extract<IndexerProcessReport, { type: typeof type }>;
        }
        const arrived = new Promise<void>((resolve) => {
          waiting = resolve;
        });
        const code = await Promise.race([arrived, exited.then((c) => ({ exited: c }))]);
        if (code !== undefined && queue.length === 0) throw new Error(`indexer process exited (${code.exited})`);
      }
    },
    send(message) {
      child.send(message);
    },
    async close() {
      if (child.connected) child.send({ type: "stop" }, () => undefined);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      if (child.exitCode === null && child.signalCode === null) await exited;
      clearTimeout(timer);
    },
  };
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
  // Compiled first: what runs is the code as it was when the bench started, and a build error
  // shows before minutes of inserting.
  const indexerModule = await bundleIndexerProcess();
  const testDb = await createTestDatabase();
  const node = await startAnvil({ chainId: 8453 });
  try {
    const db = testDb.db;
    const usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
    const config = resolveChainConfig(chain, {
      rpcUrl: node.url,
      tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
    });

    let started = performance.now();
    await insertDestinations(db, chain, watched);
    const insertMs = performance.now() - started;
    // A live deployment's addresses were written long before a catch-up: vacuumed, analysed, their
    // pages on disk. Without this the run would measure PostgreSQL settling 1M fresh rows (hint bits,
    // the checkpoint of the insert's WAL) instead of the indexer.
    started = performance.now();
    await db.query("VACUUM (ANALYZE) wallets, destinations");
    await db.query("CHECKPOINT");
    const settleMs = performance.now() - started;

    started = performance.now();
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => addressOf(i + 1));
    const seeded = await seedTransfers(node, usdc, { transfers, blocks, recipients });
    // Enough blocks on top for every deposit to reach its confirmations.
    await node.mine(config.confirmations);
    const seedMs = performance.now() - started;

    const child = await startIndexerProcess(indexerModule, {
      type: "start",
      connectionString: testDb.connectionString,
      engine: db.engine,
      chain,
      rpcUrl: node.url,
      tokenAddress: usdc.address,
      startHeight: seeded.fromBlock,
      cpuProf: options.cpuProf,
    });
    let loaded: Extract<IndexerProcessReport, { type: "loaded" }>;
    let caughtUp: Extract<IndexerProcessReport, { type: "caught-up" }>;
    let stopped: Extract<IndexerProcessReport, { type: "stopped" }>;
    let delays: number[];
    try {
      loaded = await child.next("loaded");
      caughtUp = await child.next("caught-up");
      delays = await measureConfirmationDelays(db, node, usdc, config.confirmations);
      child.send({ type: "stop" });
      stopped = await child.next("stopped");
    } finally {
      await child.close();
    }
    const { scanMs, recordMs, confirmMs, scanningTicksMs, totalMs, seen, confirmed, ticks } = caughtUp;
    const watchLoadMs = loaded.ms;

    const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
    const perSecond = (count: number, ms: number) => Math.round((count * 1000) / ms).toLocaleString("en");
    const scannedBlocks = seeded.toBlock - seeded.fromBlock + 1 + config.confirmations;
    printTable(
      `indexer: ${chain} catch-up, ${transfers.toLocaleString("en")} transfers in ${blocks} blocks, ` +
        `${watched.toLocaleString("en")} watched addresses, ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}`,
      [
        { step: "insert destinations (SQL)", ms: Math.round(insertMs) },
        { step: "settle them (VACUUM ANALYZE, CHECKPOINT)", ms: Math.round(settleMs) },
        { step: "seed transfers on anvil", ms: Math.round(seedMs) },
        { step: "load watch set", ms: Math.round(watchLoadMs), addresses: loaded.addresses },
        {
          step: "  scan (headers + logs from the node, match)",
          ms: Math.round(scanMs),
          "transfers/s": perSecond(transfers, scanMs),
        },
        { step: "  record (deposits, blocks, cursor)", ms: Math.round(recordMs) },
        {
          step: "  confirm and credit",
          ms: Math.round(confirmMs),
          "credits/s": perSecond(confirmed, confirmMs),
        },
        {
          step: "ticks that scanned (scan, record, confirm due)",
          ms: Math.round(scanningTicksMs),
          "blocks/s": perSecond(scannedBlocks, scanningTicksMs),
          "transfers/s": perSecond(transfers, scanningTicksMs),
        },
        {
          step: "end to end (scan, record, confirm, credit)",
          ms: Math.round(totalMs),
          "blocks/s": perSecond(scannedBlocks, totalMs),
          "transfers/s": perSecond(transfers, totalMs),
          "credits/s": perSecond(confirmed, totalMs),
        },
      ],
    );
    const sorted = [...delays].sort((a, b) => a - b);
    const ms = (value: number | undefined) => `${Math.round(value ?? Number.NaN)} ms`;
    const rate = (count: number, ms: number) => (count * 1000) / ms;
    const creditRatio = rate(confirmed, confirmMs) / rate(transfers, scanMs);
    printTable(
      // A title without run-varying figures: `pnpm bench compare` matches tables by their title.
      "indexer: ratios, memory, confirmation delay",
      [
        { measure: "deposits recorded", value: `${seen} (expected ${seeded.watchedTransfers})` },
        { measure: "deposits confirmed", value: `${confirmed} in ${ticks} ticks` },
        { measure: "confirm and credit rate / scan rate", value: `${creditRatio.toFixed(3)}x (target >= 0.3x)` },
        {
          measure: "end to end rate / scan rate",
          value: `${(rate(transfers, totalMs) / rate(transfers, scanMs)).toFixed(3)}x`,
        },
        { measure: "indexer process RSS before the watch set (its modules)", value: mb(loaded.before.rss) },
        {
          measure: "indexer process RSS after loading the watch set",
          value: `${mb(loaded.after.rss)} (${loaded.after.rss >= loaded.before.rss ? "+" : "-"}${mb(Math.abs(loaded.after.rss - loaded.before.rss))}, ${mb(loaded.byteLength)} held by the set, ${(loaded.byteLength / Math.max(1, loaded.addresses)).toFixed(1)} bytes per address)`,
        },
        { measure: "indexer process RSS after the catch-up", value: mb(caughtUp.memory.rss) },
        { measure: "indexer process RSS peak (maxrss, whole run)", value: mb(stopped.memory.maxRss) },
        {
          measure: "bench process RSS peak (tsx, anvil seeding, probe)",
          value: mb(process.resourceUsage().maxRSS * 1024),
        },
        { measure: "confirming block -> CONFIRMED, median", value: ms(sorted[Math.floor(sorted.length / 2)]) },
        { measure: "confirming block -> CONFIRMED, max", value: ms(sorted.at(-1)) },
      ],
    );
    process.stdout.write(
      `confirmation delay: indexer loop at its ${config.pollIntervalMs} ms poll interval, ${delays.length} samples ` +
        `(${delays.map((d) => Math.round(d)).join(", ")} ms)\n`,
    );
  } finally {
    await node.stop();
    await testDb.drop();
    rmSync(BUNDLE_DIR, { recursive: true, force: true });
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
