/**
 * Scan benchmark: blocks of 300 transactions on the Tron test node (half TRX TransferContract, half
 * USDT transfer calls with their Transfer logs), a watch set of 1,000,000 base58 addresses that 10%
 * of the transfers hit, and `scan` timed end to end through HTTP: getblockbynum +
 * gettransactioninfobyblocknum per height, zod, address encoding, matching. The node runs in a
 * child process, like a real node, and builds its blocks while this process builds the watch set.
 *
 * Run: `npx tsx chains/tron/bench/scan.ts [blocks]`. Target: >= 20 blocks/s.
 */
import { pathToFileURL } from "node:url";
import { normalizeAddress, resolveChainConfig } from "@mp/core";
import { type ForkedScanBenchResult, runForkedScanBench } from "@mp/test-nodes/bench";
import { createTronAdapter } from "../src/index.ts";
import { benchAddress } from "./deterministic-addresses.ts";

export interface TronScanBenchOptions {
  /** Blocks scanned (default 30). */
  blocks?: number;
  /** Heights fetched at once by the adapter (its default when unset). */
  concurrency?: number;
  /** Progress lines; default console.log. */
  log?: (line: string) => void;
}

export async function runTronScanBench(options: TronScanBenchOptions = {}): Promise<ForkedScanBenchResult> {
  return runForkedScanBench({
    name: "tron",
    nodeModule: new URL("./bench-node-process.ts", import.meta.url),
    blocks: options.blocks ?? 30,
    transactionsPerBlock: 300,
    watchKey: (i) => normalizeAddress("TRON", benchAddress("watch", i)),
    scan: (node, watch) =>
      createTronAdapter(
        resolveChainConfig("TRON", { rpcUrl: node.url, tokens: node.tokens, network: "regtest" }),
        options.concurrency === undefined ? {} : { concurrency: options.concurrency },
      ).scan({ from: node.from, to: node.to }, watch),
    ...(options.log ? { log: options.log } : {}),
  });
}

/** The siblings' name (chains/solana, chains/bitcoin, chains/evm), for a uniform `pnpm bench indexer`. */
export const runScanBench = (opts: { blocks?: number } = {}) => runTronScanBench(opts);

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const blocks = process.argv[2] ? Number(process.argv[2]) : undefined;
  await runTronScanBench(blocks ? { blocks } : {});
}
