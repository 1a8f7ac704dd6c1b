/**
 * Scan benchmark: blocks of 300 transactions on the Tron test node (half TRX TransferContract, half
 * USDT transfer calls with their Transfer logs), a watch set of 1,000,000 base58 addresses that 10%
 * of the transfers hit, and `scan` timed end to end through HTTP: getblockbynum +
 * gettransactioninfobyblocknum per height, zod, address encoding, matching. The node runs in a
 * child process, like a real node, and builds its blocks while this process builds the watch set.
 *
 * Run: `npx tsx chains/tron/bench/scan.ts [blocks]`. Target: >= 20 blocks/s.
 */
import { fork } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { normalizeAddress, resolveChainConfig } from "@mp/core";
import { createTronAdapter } from "../src/index.ts";
import type { BenchNodeReady, BenchNodeRequest } from "./bench-node-process.ts";
import { benchAddress } from "./deterministic-addresses.ts";

const TRANSACTIONS_PER_BLOCK = 300;
const WATCHED_ADDRESSES = 1_000_000;
const HIT_RATE = 0.1;

export interface TronScanBenchOptions {
  /** Blocks scanned (default 30). */
  blocks?: number;
  /** Heights fetched at once by the adapter (its default when unset). */
  concurrency?: number;
  /** Progress lines; default console.log. */
  log?: (line: string) => void;
}

export interface TronScanBenchResult {
  blocks: number;
  transactionsPerBlock: number;
  watchedAddresses: number;
  seconds: number;
  blocksPerSecond: number;
  transfersMatched: number;
}

export async function runTronScanBench(options: TronScanBenchOptions = {}): Promise<TronScanBenchResult> {
  const blocks = options.blocks ?? 30;
  const log = options.log ?? ((line: string) => console.log(`[tron scan bench] ${line}`));
  const child = fork(fileURLToPath(new URL("./bench-node-process.ts", import.meta.url)), [], {
    execArgv: ["--import", import.meta.resolve("tsx")],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const ready = new Promise<BenchNodeReady>((resolve, reject) => {
      child.once("message", (message) => resolve(message as BenchNodeReady));
      child.once("exit", (code) => reject(new Error(`benchmark node exited with code ${code}`)));
    });
    const request: BenchNodeRequest = {
      blocks,
      transactionsPerBlock: TRANSACTIONS_PER_BLOCK,
      watchedAddresses: WATCHED_ADDRESSES,
      hitRate: HIT_RATE,
    };
    child.send(request);

    let started = performance.now();
    const watch = new Set<string>();
    for (let i = 0; i < WATCHED_ADDRESSES; i++) watch.add(normalizeAddress("TRON", benchAddress("watch", i)));
    log(`watch set: ${watch.size} addresses in ${Math.round(performance.now() - started)} ms`);

    const node = await ready;
    log(`node built ${blocks} blocks x ${TRANSACTIONS_PER_BLOCK} transactions in ${Math.round(node.buildMs)} ms`);
    const config = resolveChainConfig("TRON", { rpcUrl: node.url, tokens: node.tokens, network: "regtest" });
    const adapter = createTronAdapter(
      config,
      options.concurrency === undefined ? {} : { concurrency: options.concurrency },
    );

    started = performance.now();
    const transfers = await adapter.scan({ from: node.firstHeight, to: node.lastHeight }, watch);
    const seconds = (performance.now() - started) / 1000;
    if (transfers.length !== node.expectedTransfers) {
      throw new Error(`scan matched ${transfers.length} transfers, the blocks hold ${node.expectedTransfers}`);
    }
    const result: TronScanBenchResult = {
      blocks,
      transactionsPerBlock: TRANSACTIONS_PER_BLOCK,
      watchedAddresses: WATCHED_ADDRESSES,
      seconds,
      blocksPerSecond: blocks / seconds,
      transfersMatched: transfers.length,
    };
    log(
      `scan: ${blocks} blocks parsed in ${seconds.toFixed(2)} s = ${result.blocksPerSecond.toFixed(1)} blocks/s ` +
        `(${Math.round((blocks * TRANSACTIONS_PER_BLOCK) / seconds)} tx/s), ${result.transfersMatched} transfers matched ` +
        "(target >= 20 blocks/s)",
    );
    return result;
  } finally {
    if (child.connected) child.send("stop");
    else child.kill();
  }
}

/** The siblings' name (chains/solana, chains/bitcoin, chains/evm), for a uniform `pnpm bench indexer`. */
export const runScanBench = (opts: { blocks?: number } = {}) => runTronScanBench(opts);

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const blocks = process.argv[2] ? Number(process.argv[2]) : undefined;
  await runTronScanBench(blocks ? { blocks } : {});
}
