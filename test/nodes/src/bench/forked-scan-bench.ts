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
  /** The newest block's height (slot). */
  head(): number;
  /** Mines one block with what was queued. */
  mine(): unknown;
  stop(): Promise<void>;
}

/** One benchmark transaction for a chain's `queue` to put on its node. */
export interface BenchTransaction {
  /** Which benchmark block (from 0) and which transaction in it. */
  block: number;
  index: number;
  /** Whether it pays a watched address (then to the one of watch-set index `watchedIndex()`). */
  hit: boolean;
  watchedIndex(): number;
  /** The benchmark's PRNG (the same blocks on every run), and an integer below `size` from it. */
  random(): number;
  pick(size: number): number;
}

/** How one chain fills its test node with benchmark blocks. */
export interface BenchBlocks<N extends BenchNode, S> {
  /** Seed of the PRNG. */
  seed: number;
  /** Funds the senders before the benchmark blocks (mined in a block of its own); `queue` gets what it returns. */
  fund(node: N): S;
  /** Queues one benchmark transaction. */
  queue(node: N, senders: S, tx: BenchTransaction): void;
  /**
   * Asks for block `height` as the scan will: a real node serves stored blocks, so the answers are
   * rendered (and cached by the test node) before the timed scan, which then measures the adapter.
   */
  warm(node: N, height: number): Promise<void>;
}

/**
 * Child side: on the benchmark's request starts the node, builds the benchmark blocks (timed:
 * buildMs): `request.blocks` blocks of `request.transactionsPerBlock` transactions, each paying a
 * watched address with probability `request.hitRate`; answers with the node and what it holds, and
 * stops it on the next message.
 */
export function serveBenchNode<N extends BenchNode, S>(start: () => Promise<N>, blocks: BenchBlocks<N, S>): void {
  // Never outlive the benchmark that started this process.
  process.once("disconnect", () => process.exit(0));
  process.once("message", async (request: BenchNodeRequest) => {
    const node = await start();
    const started = performance.now();
    const random = xorshift(blocks.seed);
    const pick = (size: number) => Math.floor(random() * size);
    const senders = blocks.fund(node);
    node.mine();
    let expectedTransfers = 0;
    const from = node.head() + 1;
    for (let block = 0; block < request.blocks; block++) {
      for (let index = 0; index < request.transactionsPerBlock; index++) {
        const hit = random() < request.hitRate;
        const watchedIndex = () => pick(request.watchedAddresses);
        blocks.queue(node, senders, { block, index, hit, watchedIndex, random, pick });
        if (hit) expectedTransfers++;
      }
      node.mine();
    }
    const to = node.head();
    for (let height = from; height <= to; height++) await blocks.warm(node, height);
    const ready: BenchNodeReady = {
      url: node.url,
      tokens: [...node.tokens],
      from,
      to,
      expectedTransfers,
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
