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
import { pathToFileURL } from "node:url";
import { resolveChainConfig } from "@mp/core";
import { runForkedScanBench } from "@mp/test-nodes/bench";
import { createSolanaAdapter } from "../src/index.ts";
import { benchAddress } from "./deterministic-addresses.ts";

export async function runScanBench(
  opts: { blocks?: number } = {},
): Promise<{ blocksPerSecond: number; transfersMatched: number }> {
  return runForkedScanBench({
    name: "solana",
    nodeModule: new URL("./bench-node-process.ts", import.meta.url),
    blocks: opts.blocks ?? 20,
    transactionsPerBlock: 2_000,
    watchKey: (i) => benchAddress("watch", i),
    scan: (node, watch) =>
      createSolanaAdapter(resolveChainConfig("SOLANA", { rpcUrl: node.url, tokens: node.tokens })).scan(
        { from: node.from, to: node.to },
        watch,
      ),
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const blocks = process.argv[2] ? Number(process.argv[2]) : undefined;
  await runScanBench(blocks ? { blocks } : {});
}
