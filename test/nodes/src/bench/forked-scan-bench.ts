import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/**
 * Scan benchmarks of the non-EVM chains share one shape: a test node in a child process (so serving
 * does not compete with the adapter for one event loop, as with a real node) builds the blocks while
 * this process builds a watch set of a million addresses, then `scan` is timed end to end over HTTP
 * and checked against the transfers the node says it put in.
 */

export interface BenchNodeRequest {
  blocks: number;
  transactionsPerBlock: number;
  watchedAddresses: number;
  hitRate: number;
}

export interface BenchNodeReady {
  url: string;
  tokens: Array<{ asset: string; address: string; decimals: number }>;
  /** First and last block height (slot) holding benchmark transactions. */
  from: number;
  to: number;
  expectedTransfers: number;
  buildMs: number;
}

/** A test node as the benchmark's child process serves it. */
export interface BenchNode {
  readonly url: string;
  readonly tokens: ReadonlyArray<{ asset: string; address: string; decimals: number }>;
  stop(): Promise<void>;
}

/**
 * Child side: on the benchmark's request starts the node, lets `fill` build the benchmark blocks
 * (timed: buildMs) and answers with the node and what it holds; stops it on the next message.
 */
export function serveBenchNode<N extends BenchNode>(
  start: () => Promise<N>,
  fill: (node: N, request: BenchNodeRequest) => Promise<Pick<BenchNodeReady, "from" | "to" | "expectedTransfers">>,
): void {
  // Never outlive the benchmark that started this process.
  process.once("disconnect", () => process.exit(0));
  process.once("message", async (request: BenchNodeRequest) => {
    const node = await start();
    const started = performance.now();
    const filled = await fill(node, request);
    const ready: BenchNodeReady = {
      url: node.url,
      tokens: [...node.tokens],
      ...filled,
      buildMs: performance.now() - started,
    };
    process.send?.(ready);
    process.once("message", async () => {
      await node.stop();
      process.exit(0);
    });
  });
}

export interface ForkedScanBenchOptions {
  /** The chain's name in progress lines: "[<name> scan bench] ...". */
  name: string;
  /** The child module, which calls serveBenchNode. */
  nodeModule: URL;
  blocks: number;
  transactionsPerBlock: number;
  /** Size of the watch set (default 1,000,000). */
  watchedAddresses?: number;
  /** Share of the benchmark transfers that pay a watched address (default 0.1). */
  hitRate?: number;
  /** Watch-set key of watched address i, as the adapter matches it. */
  watchKey: (index: number) => string;
  scan: (node: BenchNodeReady, watch: Set<string>) => Promise<unknown[]>;
  /** Progress lines; default console.log. */
  log?: (line: string) => void;
}

export interface ForkedScanBenchResult {
  seconds: number;
  blocksPerSecond: number;
  transfersMatched: number;
}

export async function runForkedScanBench(options: ForkedScanBenchOptions): Promise<ForkedScanBenchResult> {
  const { blocks, transactionsPerBlock } = options;
  const watchedAddresses = options.watchedAddresses ?? 1_000_000;
  const log = options.log ?? ((line: string) => console.log(`[${options.name} scan bench] ${line}`));
  const child = fork(fileURLToPath(options.nodeModule), [], {
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
      transactionsPerBlock,
      watchedAddresses,
      hitRate: options.hitRate ?? 0.1,
    };
    child.send(request);

    let started = performance.now();
    const watch = new Set<string>();
    for (let i = 0; i < watchedAddresses; i++) watch.add(options.watchKey(i));
    log(`watch set: ${watch.size} addresses in ${Math.round(performance.now() - started)} ms`);

    const node = await ready;
    log(`node built ${blocks} blocks x ${transactionsPerBlock} transactions in ${Math.round(node.buildMs)} ms`);
    started = performance.now();
    const transfers = await options.scan(node, watch);
    const seconds = (performance.now() - started) / 1000;
    if (transfers.length !== node.expectedTransfers) {
      throw new Error(`scan matched ${transfers.length} transfers, the blocks hold ${node.expectedTransfers}`);
    }
    const result = { seconds, blocksPerSecond: blocks / seconds, transfersMatched: transfers.length };
    log(
      `scan: ${blocks} blocks in ${seconds.toFixed(2)} s = ${result.blocksPerSecond.toFixed(1)} blocks/s ` +
        `(${Math.round((blocks * transactionsPerBlock) / seconds)} tx/s), ${result.transfersMatched} transfers matched`,
    );
    return result;
  } finally {
    if (child.connected) child.send("stop");
    else child.kill();
  }
}

/** A small deterministic PRNG, so a benchmark's blocks are the same on every run. */
export function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}
