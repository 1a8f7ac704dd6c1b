import type { Logger } from "@mp/core";
import { z } from "zod";
import { type EvmRpcClient, validated } from "./evm-rpc-client.ts";
import { chainMoved, EvmRpcError, unavailable } from "./rpc-failure.ts";
import { hash32, type Log, logSchema, logsSchema } from "./rpc-schemas.ts";
import { TRANSFER_TOPIC } from "./transfer-logs.ts";

/** A scanned block whose bloom says it may hold a Transfer of a configured token, yet eth_getLogs gave none. */
export interface SilentBlock {
  height: number;
  hash: string;
}

export interface LogRecheckOptions {
  /** Single requests (eth_getLogs by block hash). */
  rpc: EvmRpcClient;
  /** Batched requests: eth_getBlockReceipts, `receiptsPerRequest` blocks per batch, one batch at a time. */
  batchRpc: EvmRpcClient;
  /** A busy block's receipts are ~1 MB: as many per batch as full blocks (blocksPerRequest). */
  receiptsPerRequest: number;
  /** Lowercase configured token contracts. */
  contracts: readonly string[];
  /** eth_getLogs attempts per silent block before giving up (the scan then fails retryably). */
  attempts: number;
  /** Wait before the n-th retry: n × this (a lagging log index needs time, not hammering). */
  delayMs: number;
  logger?: Logger | undefined;
}

/** eth_getBlockReceipts: only what the recheck reads (the logs, and which block they are of). */
const blockReceiptsSchema = z.array(z.object({ blockHash: hash32, logs: z.array(logSchema) })).nullable();

/**
 * Resolves every silent block: a backend whose log index lags behind its blocks answers a range
 * eth_getLogs with `[]` for blocks that do hold transfers, and skipping such a block loses those
 * deposits for good. The block's receipts are the ground truth (its bloom is computed from them):
 *
 * - the receipts hold no Transfer of a configured contract: the bloom was a false positive (normal
 *   on busy blocks); the block is done, with no retry, so a false positive never loops;
 * - they hold some: eth_getLogs for that block (by hash) is asked again, up to `attempts` times with
 *   growing waits, and its answer replaces the empty one once it has every such log; if it never
 *   does, the scan fails retryably (`logs-incomplete`) and the indexer backs off and rescans.
 *   The block is never passed over.
 *
 * A node without eth_getBlockReceipts (a JSON-RPC error) leaves no ground truth: the block is then
 * accepted as empty only after `attempts` consecutive empty answers by hash. Returns the logs found
 * on retry (unmatched: the caller matches them as any eth_getLogs answer).
 */
export async function recheckSilentBlocks(silent: readonly SilentBlock[], options: LogRecheckOptions): Promise<Log[]> {
  if (silent.length === 0) return [];
  const truth = await receiptLogs(silent, options);
  const found: Log[] = [];
  for (const [i, block] of silent.entries()) {
    const expected = truth?.[i];
    if (expected !== undefined && expected.length === 0) continue; // bloom false positive
    found.push(...(await askAgain(block, expected, options)));
  }
  return found;
}

/** Per silent block, the configured contracts' Transfer logs its receipts hold; undefined if the node has no such method. */
async function receiptLogs(silent: readonly SilentBlock[], options: LogRecheckOptions): Promise<Log[][] | undefined> {
  const answers: unknown[] = [];
  try {
    for (let i = 0; i < silent.length; i += options.receiptsPerRequest) {
      const chunk = silent.slice(i, i + options.receiptsPerRequest);
      const calls = chunk.map((block) => ({ method: "eth_getBlockReceipts", params: [block.hash] }));
      answers.push(...(await options.batchRpc.many(calls)));
    }
  } catch (error) {
    if (error instanceof EvmRpcError && error.failure.reason === "rpc-error") {
      options.logger?.debug(
        { reason: error.failure.message },
        "eth_getBlockReceipts unavailable: rechecking logs only",
      );
      return undefined;
    }
    throw error;
  }
  return silent.map((block, i) => {
    const receipts = validated(blockReceiptsSchema, answers[i], "eth_getBlockReceipts", `block ${block.height}`);
    if (receipts === null || receipts.some((receipt) => receipt.blockHash !== block.hash)) {
      throw chainMoved(`receipts of block ${block.height} are not of ${block.hash}`);
    }
    return receipts.flatMap((receipt) => receipt.logs.filter((log) => isWanted(log, block, options.contracts)));
  });
}

async function askAgain(block: SilentBlock, expected: Log[] | undefined, options: LogRecheckOptions): Promise<Log[]> {
  for (let attempt = 1; attempt <= options.attempts; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, (attempt - 1) * options.delayMs));
    const answer = await options.rpc.call({
      method: "eth_getLogs",
      params: [{ blockHash: block.hash, address: options.contracts, topics: [TRANSFER_TOPIC] }],
    });
    const logs = validated(logsSchema, answer, "eth_getLogs", `logs of block ${block.height}`);
    if (logs.some((log) => log.blockHash !== block.hash)) throw chainMoved(`a log of block ${block.height}`);
    const wanted = logs.filter((log) => isWanted(log, block, options.contracts));
    if (expected === undefined ? wanted.length > 0 : wanted.length >= expected.length) {
      options.logger?.warn(
        { height: block.height, logs: wanted.length, attempt },
        "eth_getLogs left out logs its block holds; found on recheck",
      );
      return wanted;
    }
  }
  if (expected === undefined) return []; // no receipts to say otherwise: `attempts` consistent empty answers
  throw unavailable({
    method: "eth_getLogs",
    reason: "logs-incomplete",
    message: `block ${block.height} holds ${expected.length} Transfer logs of configured tokens (bloom and receipts) but eth_getLogs returned none after ${options.attempts} attempts; the node's log index lags, retry`,
  });
}

function isWanted(log: Log, block: SilentBlock, contracts: readonly string[]): boolean {
  return (
    log.removed !== true &&
    log.topics[0] === TRANSFER_TOPIC &&
    contracts.includes(log.address) &&
    log.blockNumber === block.height
  );
}
