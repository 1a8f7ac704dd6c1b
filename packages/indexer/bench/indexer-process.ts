import { mkdir, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { createEvmAdapter } from "@mp/chain-evm";
import { type ChainId, resolveChainConfig, silentLogger } from "@mp/core";
import { createWatchSet } from "@mp/custody";
import { createDatabase, type DatabaseEngine } from "@mp/db";
import { createSandboxRateProvider } from "@mp/providers";
import { createIndexer } from "../src/index.ts";

/**
 * The indexer of the bench (indexer.ts) in a process of its own, compiled as `payments` is and run
 * by plain node: what it measures of memory is the indexer's (its modules, the watch set, the
 * catch-up), not the harness's (tsx and its loader thread, anvil's seeding through viem), which
 * shared the process before and set most of its RSS. Driven over the IPC channel.
 */

/** Parent -> child: what to index; then `{ type: "stop" }` once the latency probe is done. */
export interface IndexerProcessStart {
  type: "start";
  connectionString: string;
  engine: DatabaseEngine;
  chain: ChainId;
  rpcUrl: string;
  tokenAddress: string;
  startHeight: number;
  /** A folder for a CPU profile of the catch-up (its ticks only, sampled every 250 us); none when absent. */
  cpuProf?: string | undefined;
}

export interface IndexerMemory {
  rss: number;
  heapUsed: number;
  /** Peak RSS of the process so far (getrusage's maxrss). */
  maxRss: number;
}

/** Child -> parent, in this order. */
export type IndexerProcessReport =
  | { type: "loaded"; ms: number; addresses: number; byteLength: number; before: IndexerMemory; after: IndexerMemory }
  | {
      type: "caught-up";
      totalMs: number;
      scanningTicksMs: number;
      scanMs: number;
      recordMs: number;
      confirmMs: number;
      seen: number;
      confirmed: number;
      ticks: number;
      memory: IndexerMemory;
    }
  | { type: "stopped"; memory: IndexerMemory }
  | { type: "failed"; error: string };

const memory = (): IndexerMemory => {
  const usage = process.memoryUsage();
  return { rss: usage.rss, heapUsed: usage.heapUsed, maxRss: process.resourceUsage().maxRSS * 1024 };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function report(message: IndexerProcessReport): void {
  process.send?.(message);
}

async function run(start: IndexerProcessStart, stopped: Promise<void>): Promise<void> {
  const db = createDatabase({
    connectionString: start.connectionString,
    engine: start.engine,
    max: start.engine === "pglite" ? 1 : 10,
    // As the test databases wait (testing.ts): on a machine loaded by other jobs the default 5 s
    // to get a connection is not what this bench measures.
    connectionTimeoutMs: 60_000,
  });
  try {
    const config = resolveChainConfig(start.chain, {
      rpcUrl: start.rpcUrl,
      tokens: [{ asset: "USDC", address: start.tokenAddress, decimals: 6 }],
      startHeight: start.startHeight,
    });
    const before = memory();
    const watch = createWatchSet(db, start.chain);
    let started = performance.now();
    await watch.refresh();
    report({
      type: "loaded",
      ms: performance.now() - started,
      addresses: watch.size,
      byteLength: watch.byteLength,
      before,
      after: memory(),
    });

    const indexer = createIndexer({
      db,
      adapter: createEvmAdapter(config),
      config,
      watch,
      rates: createSandboxRateProvider(),
      logger: silentLogger(),
    });
    const steps = { scanMs: 0, recordMs: 0, confirmMs: 0 };
    let scanningTicksMs = 0;
    let seen = 0;
    let confirmed = 0;
    let ticks = 0;
    const profiler = start.cpuProf ? await startProfiler() : undefined;
    started = performance.now();
    for (;;) {
      const tickStarted = performance.now();
      const result = await indexer.tick();
      ticks++;
      if (result.scanned) scanningTicksMs += performance.now() - tickStarted;
      steps.scanMs += result.timings.scanMs;
      steps.recordMs += result.timings.recordMs;
      steps.confirmMs += result.timings.confirmMs;
      seen += result.depositsSeen;
      confirmed += result.depositsConfirmed;
      if (!result.active) {
        // Not leading (the lease lapsed while the machine was loaded): nothing was done. Wait for the
        // keeper's next poll, a timer, which a loop of ticks resolving at once would starve.
        if (performance.now() - started > 300_000) throw new Error("indexer bench: no lease of the chain in 300 s");
        await sleep(100);
        continue;
      }
      if (result.caughtUp && result.depositsConfirmed === 0) break;
    }
    if (profiler && start.cpuProf) {
      const { profile } = await profiler.post("Profiler.stop");
      await mkdir(start.cpuProf, { recursive: true });
      await writeFile(join(start.cpuProf, `indexer-catch-up-${process.pid}.cpuprofile`), JSON.stringify(profile));
      profiler.disconnect();
    }
    report({
      type: "caught-up",
      totalMs: performance.now() - started,
      scanningTicksMs,
      ...steps,
      seen,
      confirmed,
      ticks,
      memory: memory(),
    });

    // Its own loop at its poll interval, for the parent's confirmation-delay probe.
    const loop = indexer.start();
    await stopped;
    await indexer.stop();
    await loop;
    report({ type: "stopped", memory: memory() });
  } finally {
    await db.close();
  }
}

/** The inspector's sampling profiler, started (node's `--cpu-prof` would profile the watch set's load too). */
async function startProfiler(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 250 });
  await session.post("Profiler.start");
  return session;
}

let start: (message: IndexerProcessStart) => void = () => undefined;
const started = new Promise<IndexerProcessStart>((resolve) => {
  start = resolve;
});
let stop: () => void = () => undefined;
const stopped = new Promise<void>((resolve) => {
  stop = resolve;
});
process.on("message", (message: { type?: string }) => {
  if (message.type === "start") start(message as IndexerProcessStart);
  if (message.type === "stop") stop();
});
// The parent gone (killed, crashed): nothing is left to report to.
const orphaned = () => process.exit(1);
process.on("disconnect", orphaned);

try {
  await run(await started, stopped);
} catch (error) {
  report({ type: "failed", error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exitCode = 1;
}
process.off("disconnect", orphaned);
process.disconnect?.();
