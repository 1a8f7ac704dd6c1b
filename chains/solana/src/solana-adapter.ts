import {
  type AddressMatcher,
  type BlockHeader,
  type ChainAdapter,
  type ChainConfig,
  ConfigError,
  type Logger,
  type ObservedTransfer,
  type ScanRange,
  ServiceUnavailableError,
  ValidationError,
} from "@mp/core";
import type { z } from "zod";
import { extractBlockTransfers } from "./block-transfers.ts";
import {
  DEFAULT_COMMITMENT,
  MAX_GET_BLOCKS_RANGE,
  SLOT_SKIPPED_ERROR_CODES,
  type SolanaCommitment,
} from "./constants.ts";
import { JsonRpcClient, type JsonRpcOutcome } from "./json-rpc-client.ts";
import { blockHeaderSchema, fullBlockSchema, getBlocksResultSchema, getSlotResultSchema } from "./rpc-schemas.ts";
import { resolveSolanaAssets, type SolanaAssets } from "./solana-assets.ts";

export interface SolanaAdapterOptions {
  fetch?: typeof globalThis.fetch;
  logger?: Logger;
  /** Read commitment (default `confirmed`, see constants.ts). */
  commitment?: SolanaCommitment;
  /**
   * Full blocks per JSON-RPC batch (default 1: a busy block is several MB of jsonParsed, so batching
   * saves nothing but makes responses providers cap; parallel requests hide latency instead).
   */
  blocksPerRequest?: number;
  /** Header-only getBlock calls per JSON-RPC batch (default 10, the batch limit of common providers); 1 = no batching. */
  headersPerRequest?: number;
  /** HTTP requests in flight at once (default 2; raise it for a remote provider with high latency). */
  concurrency?: number;
  /** Per HTTP request (default 30 s: a full mainnet block in jsonParsed is several MB). */
  timeoutMs?: number;
}

/**
 * The Solana ChainAdapter over JSON-RPC. Heights are slots. `getBlocks` lists the slots in a
 * range that hold a block (skipped slots are simply absent), then `getBlock` fetches them in
 * JSON-RPC batches: with `transactionDetails: "none"` for headers, `"full"` + `jsonParsed` for
 * scans. Matching against the watch set happens in memory, so a scan costs the same whether one or
 * a million addresses are watched.
 */
export function createSolanaAdapter(config: ChainConfig, options: SolanaAdapterOptions = {}): ChainAdapter {
  if (config.chain !== "SOLANA")
    throw new ConfigError("CHAINS_CONFIG", `the Solana adapter cannot index ${config.chain}`);
  return new SolanaAdapter(config, options);
}

class SolanaAdapter implements ChainAdapter {
  readonly chain = "SOLANA" as const;
  private readonly rpc: JsonRpcClient;
  private readonly assets: SolanaAssets;
  private readonly commitment: SolanaCommitment;
  private readonly blocksPerRequest: number;
  private readonly headersPerRequest: number;
  private readonly concurrency: number;
  private readonly logger: Logger | undefined;

  constructor(config: ChainConfig, options: SolanaAdapterOptions) {
    this.rpc = new JsonRpcClient({ url: config.rpcUrl, fetch: options.fetch, timeoutMs: options.timeoutMs });
    this.assets = resolveSolanaAssets(config);
    this.commitment = options.commitment ?? DEFAULT_COMMITMENT;
    this.blocksPerRequest = Math.max(1, options.blocksPerRequest ?? 1);
    this.headersPerRequest = Math.max(1, options.headersPerRequest ?? 10);
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.logger = options.logger;
  }

  async head(): Promise<number> {
    const result = await this.rpc.call({ method: "getSlot", params: [{ commitment: this.commitment }] });
    return validated(getSlotResultSchema, result, "getSlot");
  }

  async headers(range: ScanRange): Promise<BlockHeader[]> {
    const slots = await this.blockSlots(range);
    const config = {
      commitment: this.commitment,
      transactionDetails: "none",
      maxSupportedTransactionVersion: 0,
      rewards: false,
    };
    return this.fetchBlocks(slots, config, this.headersPerRequest, (slot, result): BlockHeader => {
      const block = validated(blockHeaderSchema, result, `getBlock ${slot}`);
      return { height: slot, hash: block.blockhash, parentHash: block.previousBlockhash };
    });
  }

  async scan(range: ScanRange, watch: AddressMatcher): Promise<ObservedTransfer[]> {
    const started = performance.now();
    const slots = await this.blockSlots(range);
    const config = {
      commitment: this.commitment,
      encoding: "jsonParsed",
      transactionDetails: "full",
      maxSupportedTransactionVersion: 0,
      rewards: false,
    };
    const perBlock = await this.fetchBlocks(slots, config, this.blocksPerRequest, (slot, result) => {
      const block = validated(fullBlockSchema, result, `getBlock ${slot}`);
      return extractBlockTransfers(block, { slot, blockHash: block.blockhash }, this.assets, watch);
    });
    const transfers = perBlock.flat();
    this.logger?.debug(
      {
        from: range.from,
        to: range.to,
        blocks: slots.length,
        transfers: transfers.length,
        ms: performance.now() - started,
      },
      "solana scan",
    );
    return transfers;
  }

  /** Slots in the range that hold a block, ascending (getBlocks, split at its range limit). */
  private async blockSlots(range: ScanRange): Promise<number[]> {
    if (isEmptyRange(range)) return [];
    const slots: number[] = [];
    for (let from = range.from; from <= range.to; from += MAX_GET_BLOCKS_RANGE) {
      const to = Math.min(range.to, from + MAX_GET_BLOCKS_RANGE - 1);
      const result = await this.rpc.call({ method: "getBlocks", params: [from, to, { commitment: this.commitment }] });
      for (const slot of validated(getBlocksResultSchema, result, "getBlocks")) {
        if (slot < from || slot > to || (slots.length > 0 && slot <= (slots.at(-1) ?? -1))) {
          throw new ServiceUnavailableError(`Solana RPC getBlocks(${from}, ${to}) returned slot ${slot} out of order`);
        }
        slots.push(slot);
      }
    }
    return slots;
  }

  /**
   * getBlock for every slot, `perRequest` per JSON-RPC batch with `concurrency` batches in flight;
   * results come back in slot order. A slot getBlocks listed must yield its block: "skipped"
   * (-32007/-32009) for such a slot means this node lacks it (e.g. it started from a later
   * snapshot), not that the chain has no block there, so it is a retryable error, never silence.
   */
  private async fetchBlocks<T>(
    slots: readonly number[],
    config: Record<string, unknown>,
    perRequest: number,
    read: (slot: number, result: unknown) => T,
  ): Promise<T[]> {
    const chunks: number[][] = [];
    for (let i = 0; i < slots.length; i += perRequest) chunks.push(slots.slice(i, i + perRequest));
    const results: T[][] = new Array(chunks.length);
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < chunks.length) {
        const index = next++;
        const chunk = chunks[index] ?? [];
        try {
          const outcomes = await this.rpc.batch(chunk.map((slot) => ({ method: "getBlock", params: [slot, config] })));
          results[index] = chunk.map((slot, i) => read(slot, blockResult(slot, outcomes[i])));
        } catch (error) {
          failed = true; // the whole call fails: stop the other workers fetching for nothing
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, chunks.length) }, worker));
    return results.flat();
  }
}

function blockResult(slot: number, outcome: JsonRpcOutcome | undefined): unknown {
  if (!outcome) throw new ServiceUnavailableError(`Solana RPC getBlock ${slot}: no answer`);
  if (!outcome.ok) {
    const why = SLOT_SKIPPED_ERROR_CODES.has(outcome.code) ? " although getBlocks listed it" : "";
    throw new ServiceUnavailableError(`Solana RPC getBlock ${slot} failed${why}: ${outcome.code} ${outcome.message}`, {
      details: { code: outcome.code, slot },
    });
  }
  if (outcome.result === null)
    throw new ServiceUnavailableError(`Solana RPC getBlock ${slot}: block not available yet`);
  return outcome.result;
}

/** A range ending before it starts is empty (the indexer is caught up); a malformed one is a bug. */
function isEmptyRange(range: ScanRange): boolean {
  if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to) || range.from < 0) {
    throw new ValidationError(`invalid slot range ${range.from}..${range.to}`, "range");
  }
  return range.to < range.from;
}

function validated<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.join(".") ?? "";
  throw new ServiceUnavailableError(
    `Solana RPC ${what}: unexpected answer at ${where || "(root)"}: ${issue?.message}`,
    {
      cause: parsed.error,
    },
  );
}
