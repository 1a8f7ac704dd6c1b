/**
 * Scan benchmark: blocks of 2,000 realistic transactions on the Solana test node (SOL transfers,
 * SOL moved by a program through CPI, USDC/USDT transferChecked into associated token accounts,
 * memos; legacy and v0 messages), a watch set of 1,000,000 addresses that 10% of the transfers
 * hit, and `scan` timed end to end through HTTP: getBlocks, getBlock (jsonParsed), zod, matching.
 * The node runs in a child process, like a real RPC node, and builds its blocks while this
 * process builds the watch set.
 *
 * Run: `npx tsx chains/solana/bench/scan.ts [blocks]`. Target: >= 5 blocks/s.
 */
import { fork } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { resolveChainConfig } from "@mp/core";
import { createSolanaAdapter } from "../src/index.ts";
import type { BenchNodeReady, BenchNodeRequest } from "./bench-node-process.ts";
import { benchAddress } from "./deterministic-addresses.ts";

const TRANSACTIONS_PER_BLOCK = 2_000;
const WATCHED_ADDRESSES = 1_000_000;
const HIT_RATE = 0.1;

export async function runScanBench(
  opts: { blocks?: number } = {},
): Promise<{ blocksPerSecond: number; transfersMatched: number }> {
  const blocks = opts.blocks ?? 20;
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
    for (let i = 0; i < WATCHED_ADDRESSES; i++) watch.add(benchAddress("watch", i));
    log(`watch set: ${watch.size} addresses in ${ms(started)}`);

    const node = await ready;
    log(`node built ${blocks} blocks x ${TRANSACTIONS_PER_BLOCK} transactions in ${Math.round(node.buildMs)} ms`);
    const config = resolveChainConfig("SOLANA", { rpcUrl: node.url, tokens: node.tokens });
    const adapter = createSolanaAdapter(config);

    started = performance.now();
    const transfers = await adapter.scan({ from: node.firstSlot, to: node.lastSlot }, watch);
    const seconds = (performance.now() - started) / 1000;
    if (transfers.length !== node.expectedTransfers) {
      throw new Error(`scan matched ${transfers.length} transfers, the blocks hold ${node.expectedTransfers}`);
    }
    const result = { blocksPerSecond: blocks / seconds, transfersMatched: transfers.length };
    log(
      `scan: ${blocks} blocks in ${seconds.toFixed(2)} s = ${result.blocksPerSecond.toFixed(1)} blocks/s ` +
        `(${Math.round((blocks * TRANSACTIONS_PER_BLOCK) / seconds)} tx/s), ${result.transfersMatched} transfers matched`,
    );
    return result;
  } finally {
    if (child.connected) child.send("stop");
    else child.kill();
  }
}

const ms = (since: number) => `${Math.round(performance.now() - since)} ms`;
const log = (line: string) => console.log(`[solana scan bench] ${line}`);

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const blocks = process.argv[2] ? Number(process.argv[2]) : undefined;
  await runScanBench(blocks ? { blocks } : {});
}
