import type {
  AddressMatcher,
  BlockHeader,
  ChainAdapter,
  ChainConfig,
  EvmChainId,
  EvmTraceMethod,
  Logger,
  ObservedTransfer,
  ScanRange,
} from "@mp/core";
import { isEmptyRange, mapBounded } from "@mp/core";
import { numberToHex } from "viem";
import type { z } from "zod";
import { AdaptiveBlockRange } from "./adaptive-block-range.ts";
import { type EvmAssets, resolveEvmAssets } from "./evm-assets.ts";
import { checkEvmChainId } from "./evm-networks.ts";
import { EvmRpcClient, validated } from "./evm-rpc-client.ts";
import { recheckSilentBlocks } from "./log-completeness.ts";
import { logFilterBloom } from "./logs-bloom.ts";
import { nativeTransferCandidates, receiptOutcome } from "./native-transfers.ts";
import { verifyEvmNode } from "./node-capabilities.ts";
import { chainMoved, EvmRpcError, isLogRangeRejection, unavailable } from "./rpc-failure.ts";
import {
  blockHeaderSchema,
  blockNumberSchema,
  chainIdSchema,
  fullBlockSchema,
  logsSchema,
  receiptSchema,
} from "./rpc-schemas.ts";
import { compareTransfers, type SortableTransfer } from "./sortable-transfer.ts";
import { traceBlockCall, traceMethodMissing, traceTransfers } from "./trace-transfers.ts";
import { matchTransferLog, TRANSFER_TOPIC } from "./transfer-logs.ts";

export interface EvmAdapterOptions {
  fetch?: typeof globalThis.fetch;
  logger?: Logger;
  /** Header-only eth_getBlockByNumber per JSON-RPC batch (default 100); also receipts per batch. */
  headersPerRequest?: number;
  /** Full blocks (with transactions) per JSON-RPC batch (default 10: a busy L2 block is ~1 MB). */
  blocksPerRequest?: number;
  /** HTTP requests in flight at once for blocks and receipts (default 4). */
  concurrency?: number;
  /** Per HTTP request (default 30 s). */
  timeoutMs?: number;
  /** Largest answer accepted (default 64 MiB); a larger eth_getLogs answer shrinks the range. */
  maxResponseBytes?: number;
  /** eth_getLogs attempts for a block whose bloom and receipts hold logs it left out (default 3; log-completeness.ts). */
  logRecheckAttempts?: number;
  /** Wait before the n-th of those attempts: n × this (default 250 ms). */
  logRecheckDelayMs?: number;
}

/** One block as a scan keeps it: its identity and the native transfers it may hold. */
interface BlockSummary {
  height: number;
  hash: string;
  parentHash: string;
  candidates: SortableTransfer[];
  /** Its logsBloom holds the Transfer topic and a configured token contract. */
  mayHoldTokenLogs: boolean;
  /** Native coin paid by contracts to watched addresses, from the block's trace (`traces` on). */
  internal: SortableTransfer[];
}

/**
 * The ChainAdapter of the seven EVM chains over standard JSON-RPC:
 * - native coin: transactions of each block (eth_getBlockByNumber with full transactions) paying a
 *   watched address, kept only if their receipt says success (receipts fetched for those only);
 * - ERC-20: `Transfer` logs of the configured token contracts (eth_getLogs filtered by contract and
 *   topic0), over a block range that adapts to what the provider accepts;
 * - matching is a Set lookup per transfer in memory, so the cost does not grow with the watch set.
 * Every transfer carries the hash of its block; a scan that sees the chain change under it (a log,
 * receipt or parent link disagreeing with the blocks it read) fails retryably rather than mix forks.
 */
export function createEvmAdapter(config: ChainConfig, options: EvmAdapterOptions = {}): ChainAdapter {
  return new EvmAdapter(config, options);
}

class EvmAdapter implements ChainAdapter {
  readonly chain: EvmChainId;
  private readonly assets: EvmAssets;
  /** eth_blockNumber, eth_getLogs: single requests. */
  private readonly rpc: EvmRpcClient;
  /** Headers and receipts: small answers, large batches. */
  private readonly headerRpc: EvmRpcClient;
  /** Full blocks: large answers, small batches. */
  private readonly blockRpc: EvmRpcClient;
  private readonly headersPerRequest: number;
  private readonly blocksPerRequest: number;
  private readonly concurrency: number;
  private readonly logRange: AdaptiveBlockRange;
  private readonly tokenContracts: string[];
  private readonly mayHoldTokenLogs: (logsBloom: string | undefined) => boolean;
  private readonly logRecheck: { attempts: number; delayMs: number };
  private readonly traces: EvmTraceMethod;
  private readonly logger: Logger | undefined;
  private readonly network: ChainConfig["network"];
  private readonly startHeight: number;

  constructor(config: ChainConfig, options: EvmAdapterOptions) {
    this.network = config.network;
    this.startHeight = config.startHeight;
    this.assets = resolveEvmAssets(config);
    this.chain = this.assets.chain;
    this.headersPerRequest = positive(options.headersPerRequest, 100);
    this.blocksPerRequest = positive(options.blocksPerRequest, 10);
    this.concurrency = positive(options.concurrency, 4);
    const common = {
      url: config.rpcUrl,
      setting: `CHAINS_CONFIG.${this.chain}.rpcUrl`,
      fetch: options.fetch,
      timeoutMs: positive(options.timeoutMs, 30_000),
      maxResponseBytes: positive(options.maxResponseBytes, 64 * 1024 * 1024),
    };
    this.rpc = new EvmRpcClient(common);
    this.headerRpc = new EvmRpcClient({ ...common, batchSize: this.headersPerRequest });
    this.blockRpc = new EvmRpcClient({ ...common, batchSize: this.blocksPerRequest });
    this.logRange = new AdaptiveBlockRange(config.batchSize);
    this.tokenContracts = this.assets.tokens.map((token) => token.key);
    this.mayHoldTokenLogs = logFilterBloom(this.tokenContracts, TRANSFER_TOPIC);
    this.logRecheck = {
      attempts: positive(options.logRecheckAttempts, 3),
      delayMs: options.logRecheckDelayMs ?? 250,
    };
    this.traces = config.traces;
    this.logger = options.logger;
  }

  async head(): Promise<number> {
    const answer = await this.rpc.call({ method: "eth_blockNumber", params: [] });
    return validated(blockNumberSchema, answer, "eth_blockNumber", "head");
  }

  /**
   * eth_chainId must be the configured chain's id on the configured network (evm-networks.ts);
   * `regtest` is a local node (anvil), whose id is its own: any is accepted. Then what the node
   * must offer from `from` (default startHeight) on, on every network (node-capabilities.ts).
   */
  async verifyNetwork(from = this.startHeight): Promise<void> {
    if (this.network !== "regtest") {
      const answer = await this.rpc.call({ method: "eth_chainId", params: [] });
      checkEvmChainId(this.chain, this.network, validated(chainIdSchema, answer, "eth_chainId", "network"));
    }
    await verifyEvmNode(this.rpc, { chain: this.chain, from, tokenContracts: this.tokenContracts });
  }

  async headers(range: ScanRange): Promise<BlockHeader[]> {
    return this.forEachChunk(range, this.headersPerRequest, async (heights) => {
      const answers = await this.headerRpc.many(
        heights.map((height) => ({ method: "eth_getBlockByNumber", params: [numberToHex(height), false] })),
      );
      return heights.map((height, i) => {
        const block = blockAt(blockHeaderSchema, answers[i], height);
        return { height, hash: block.hash, parentHash: block.parentHash };
      });
    });
  }

  async scan(range: ScanRange, watch: AddressMatcher): Promise<ObservedTransfer[]> {
    const started = performance.now();
    if (isEmptyRange(range)) return [];
    const [blocks, tokenLogs] = await Promise.all([
      this.blockSummaries(range, watch),
      this.tokenTransfers(range, watch),
    ]);
    const hashes = new Map<number, string>();
    let previous: BlockSummary | undefined;
    for (const block of blocks) {
      if (previous && block.parentHash !== previous.hash)
        throw chainMoved(`block ${block.height} does not follow ${previous.height}`);
      hashes.set(block.height, block.hash);
      previous = block;
    }
    const tokenTransfers = [...tokenLogs.matched, ...(await this.recheckSilentBlocks(blocks, tokenLogs.blocks, watch))];
    for (const token of tokenTransfers) {
      if (hashes.get(token.transfer.blockHeight) !== token.transfer.blockHash) {
        throw chainMoved(`log of ${token.transfer.txHash} is in another block ${token.transfer.blockHeight}`);
      }
    }
    const native = await this.successful(blocks.flatMap((block) => block.candidates));
    const internal = blocks.flatMap((block) => block.internal);
    const transfers = [...native, ...internal, ...tokenTransfers]
      .sort(compareTransfers)
      .map((sortable) => sortable.transfer);
    this.logger?.debug(
      {
        chain: this.chain,
        from: range.from,
        to: range.to,
        native: native.length,
        internal: internal.length,
        tokens: tokenTransfers.length,
        logRange: this.logRange.size,
        ms: Math.round(performance.now() - started),
      },
      "evm scan",
    );
    return transfers;
  }

  /**
   * Full blocks (and their traces, when `traces` is on), reduced as they arrive to their identity
   * and native transfers (bounded memory).
   */
  private blockSummaries(range: ScanRange, watch: AddressMatcher): Promise<BlockSummary[]> {
    const traces = this.traces;
    return this.forEachChunk(range, this.blocksPerRequest, async (heights) => {
      const [answers, traceAnswers] = await Promise.all([
        this.blockRpc.many(
          heights.map((height) => ({ method: "eth_getBlockByNumber", params: [numberToHex(height), true] })),
        ),
        traces === "off" ? [] : this.blockTraces(traces, heights),
      ]);
      return heights.map((height, i) => {
        const block = blockAt(fullBlockSchema, answers[i], height);
        return {
          height,
          hash: block.hash,
          parentHash: block.parentHash,
          candidates: nativeTransferCandidates(block, this.assets, watch),
          mayHoldTokenLogs: this.mayHoldTokenLogs(block.logsBloom),
          internal: traces === "off" ? [] : traceTransfers(traces, traceAnswers[i], block, this.assets, watch),
        };
      });
    });
  }

  /** The traces of `heights`; a node without the configured method is a configuration error, not an outage. */
  private async blockTraces(traces: Exclude<EvmTraceMethod, "off">, heights: number[]): Promise<unknown[]> {
    try {
      return await this.blockRpc.many(heights.map((height) => traceBlockCall(traces, height)));
    } catch (error) {
      throw traceMethodMissing(error, this.chain, traces) ?? error;
    }
  }

  /**
   * Receipts of the native candidates (only those: a handful per scan), batched. A missing
   * receipt or one from another block means the chain moved since the blocks were read.
   */
  private async successful(candidates: SortableTransfer[]): Promise<SortableTransfer[]> {
    const kept: SortableTransfer[] = [];
    for (let i = 0; i < candidates.length; i += this.headersPerRequest) {
      const chunk = candidates.slice(i, i + this.headersPerRequest);
      const answers = await this.headerRpc.many(
        chunk.map((c) => ({ method: "eth_getTransactionReceipt", params: [c.transfer.txHash] })),
      );
      chunk.forEach((candidate, j) => {
        const { txHash, blockHash } = candidate.transfer;
        if (answers[j] === null) throw chainMoved(`transaction ${txHash} has no receipt`);
        const receipt = validated(receiptSchema, answers[j], "eth_getTransactionReceipt", txHash);
        if (receipt.blockHash !== blockHash) throw chainMoved(`receipt of ${txHash} is from another block`);
        const outcome = receiptOutcome(receipt);
        if (outcome === "success") kept.push(candidate);
        else if (outcome === "unknown") {
          this.logger?.warn({ chain: this.chain, txHash }, "receipt without status (pre-Byzantium): not a deposit");
        }
      });
    }
    return kept;
  }

  /**
   * Blocks whose bloom says they may hold a configured token's Transfer though eth_getLogs gave
   * none for them are rechecked (log-completeness.ts); the transfers that finds, matched.
   */
  private async recheckSilentBlocks(
    blocks: readonly BlockSummary[],
    withLogs: ReadonlySet<number>,
    watch: AddressMatcher,
  ): Promise<SortableTransfer[]> {
    const silent = blocks.filter((block) => block.mayHoldTokenLogs && !withLogs.has(block.height));
    const logs = await recheckSilentBlocks(silent, {
      rpc: this.rpc,
      batchRpc: this.blockRpc,
      receiptsPerRequest: this.blocksPerRequest,
      contracts: this.tokenContracts,
      ...this.logRecheck,
      logger: this.logger?.child({ chain: this.chain }),
    });
    return logs.flatMap((log) => matchTransferLog(log, this.assets, watch) ?? []);
  }

  /**
   * Matched ERC-20 transfers, paging eth_getLogs through the adaptive range; each page is matched
   * and dropped. Also the heights that had any log of the filter (matched or not), for the bloom check.
   */
  private async tokenTransfers(
    range: ScanRange,
    watch: AddressMatcher,
  ): Promise<{ matched: SortableTransfer[]; blocks: Set<number> }> {
    const matched: SortableTransfer[] = [];
    const blocks = new Set<number>();
    if (this.tokenContracts.length === 0) return { matched, blocks };
    let from = range.from;
    while (from <= range.to) {
      const to = Math.min(range.to, from + this.logRange.size - 1);
      let answer: unknown;
      try {
        answer = await this.rpc.call({
          method: "eth_getLogs",
          params: [
            {
              fromBlock: numberToHex(from),
              toBlock: numberToHex(to),
              address: this.tokenContracts,
              topics: [TRANSFER_TOPIC],
            },
          ],
        });
      } catch (error) {
        if (error instanceof EvmRpcError && isLogRangeRejection(error.failure) && this.logRange.shrink(to - from + 1)) {
          this.logger?.debug(
            { chain: this.chain, from, to, next: this.logRange.size, reason: error.failure.message },
            "eth_getLogs range refused; shrinking",
          );
          continue;
        }
        throw error;
      }
      for (const log of validated(logsSchema, answer, "eth_getLogs", `logs ${from}..${to}`)) {
        if (log.blockNumber < from || log.blockNumber > to) {
          throw unavailable({
            method: "eth_getLogs",
            reason: "bad-answer",
            message: `log in block ${log.blockNumber} outside ${from}..${to}`,
          });
        }
        blocks.add(log.blockNumber);
        const transfer = matchTransferLog(log, this.assets, watch);
        if (transfer) matched.push(transfer);
      }
      this.logRange.grow();
      from = to + 1;
    }
    return { matched, blocks };
  }

  /**
   * Runs `work` over the heights of `range` in chunks of `size`, `concurrency` chunks at a time,
   * and returns the results in height order. The first failure fails the whole call.
   */
  private async forEachChunk<T>(
    range: ScanRange,
    size: number,
    work: (heights: number[]) => Promise<T[]>,
  ): Promise<T[]> {
    if (isEmptyRange(range)) return [];
    const chunks: number[][] = [];
    for (let start = range.from; start <= range.to; start += size) {
      const end = Math.min(range.to, start + size - 1);
      chunks.push(Array.from({ length: end - start + 1 }, (_, i) => start + i));
    }
    return (await mapBounded(chunks, this.concurrency, work)).flat();
  }
}

function positive(value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`expected a positive integer, got ${value}`);
  return value;
}

/**
 * eth_getBlockByNumber's answer for `height`, validated: null (a block the node does not have yet)
 * and another block than the one asked are bad answers.
 */
function blockAt<S extends z.ZodType<{ number: number }>>(schema: S, answer: unknown, height: number): z.output<S> {
  const bad = (message: string) => unavailable({ method: "eth_getBlockByNumber", reason: "bad-answer", message });
  if (answer === null) throw bad(`block ${height} not available yet`);
  const block = validated(schema, answer, "eth_getBlockByNumber", `block ${height}`);
  if (block.number !== height) throw bad(`asked block ${height}, got ${block.number}`);
  return block;
}
