import type {
  AddressMatcher,
  BlockHeader,
  ChainAdapter,
  ChainConfig,
  Logger,
  ObservedTransfer,
  ScanRange,
} from "@mp/core";
import { ChainMisconfiguredError, ConfigError, expectedNetworks, isEmptyRange, mapBounded } from "@mp/core";
import { JsonRpcClient, type JsonRpcOutcome, RpcUnavailableError } from "@mp/rpc";
import { extractBlockTransfers } from "./block-transfers.ts";
import {
  DEFAULT_COMMITMENT,
  MAX_GET_BLOCKS_RANGE,
  SLOT_SKIPPED_ERROR_CODES,
  SOLANA_CLUSTERS,
  type SolanaCommitment,
} from "./constants.ts";
import { verifySolanaNode } from "./node-capabilities.ts";
import {
  blockHeaderSchema,
  fullBlockSchema,
  genesisHashSchema,
  getBlocksResultSchema,
  getSlotResultSchema,
} from "./rpc-schemas.ts";
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
  private readonly network: ChainConfig["network"];

  constructor(config: ChainConfig, options: SolanaAdapterOptions) {
    this.rpc = new JsonRpcClient({
      url: config.rpcUrl,
      label: "Solana RPC",
      setting: "CHAINS_CONFIG.SOLANA.rpcUrl",
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
      logger: options.logger,
    });
    this.network = config.network;
    this.assets = resolveSolanaAssets(config);
    this.commitment = options.commitment ?? DEFAULT_COMMITMENT;
    this.blocksPerRequest = Math.max(1, options.blocksPerRequest ?? 1);
    this.headersPerRequest = Math.max(1, options.headersPerRequest ?? 10);
    this.concurrency = Math.max(1, options.concurrency ?? 2);
    this.logger = options.logger;
  }

  async head(): Promise<number> {
    const result = await this.rpc.call("getSlot", [{ commitment: this.commitment }]);
    return this.rpc.validated(getSlotResultSchema, result, "getSlot");
  }

  /**
   * The node must keep transaction history (verifySolanaNode), and its genesis hash must be one
   * of the configured network's clusters (mainnet: mainnet-beta;
   * testnet: testnet or devnet). `regtest` is a local validator or test node, whose genesis is
   * its own: any is accepted.
   */
  async verifyNetwork(): Promise<void> {
    const clusters = expectedNetworks(this.network, SOLANA_CLUSTERS);
    if (clusters !== null) {
      const answer = await this.rpc.call("getGenesisHash");
      const genesis = this.rpc.validated(genesisHashSchema, answer, "getGenesisHash");
      if (!clusters.some((cluster) => cluster.genesis === genesis)) {
        throw new ChainMisconfiguredError(
          `CHAINS_CONFIG.SOLANA.network is ${this.network} (${clusters.map((c) => c.name).join(" or ")}) but the node at CHAINS_CONFIG.SOLANA.rpcUrl serves the cluster with genesis ${genesis}`,
          { details: { network: this.network, genesisHash: genesis } },
        );
      }
    }
    // What the node must offer (node-capabilities.ts), on every network, regtest included.
    await verifySolanaNode(this.rpc, "SOLANA");
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
      const block = this.rpc.validated(blockHeaderSchema, result, `getBlock ${slot}`);
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
      const block = this.rpc.validated(fullBlockSchema, result, `getBlock ${slot}`);
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

  /**
   * Slots in the range that hold a block, ascending (getBlocks, split at its range limit). getBlocks
   * silently leaves out slots the node has purged from its ledger, exactly as it leaves out skipped
   * ones: so once the slots are listed, getFirstAvailableBlock must not be above the range's start
   * (asked after getBlocks: the first available slot only grows, so it was no higher then).
   * Otherwise blocks would be passed over unseen: the chain stops with ChainMisconfiguredError.
   */
  private async blockSlots(range: ScanRange): Promise<number[]> {
    if (isEmptyRange(range)) return [];
    const slots: number[] = [];
    for (let from = range.from; from <= range.to; from += MAX_GET_BLOCKS_RANGE) {
      const to = Math.min(range.to, from + MAX_GET_BLOCKS_RANGE - 1);
      const result = await this.rpc.call("getBlocks", [from, to, { commitment: this.commitment }]);
      for (const slot of this.rpc.validated(getBlocksResultSchema, result, "getBlocks")) {
        if (slot < from || slot > to || (slots.length > 0 && slot <= (slots.at(-1) ?? -1))) {
          throw new RpcUnavailableError(`Solana RPC getBlocks(${from}, ${to}) returned slot ${slot} out of order`);
        }
        slots.push(slot);
      }
    }
    const first = this.rpc.validated(
      getSlotResultSchema,
      await this.rpc.call("getFirstAvailableBlock"),
      "getFirstAvailableBlock",
    );
    if (first > range.from) {
      throw new ChainMisconfiguredError(
        `the Solana node at CHAINS_CONFIG.SOLANA.rpcUrl has purged slots ${range.from}..${first - 1} (its first available block is ${first}): their deposits cannot be seen; use a node that keeps this history (a larger --limit-ledger-size or an archive provider)`,
        { details: { from: range.from, firstAvailableBlock: first } },
      );
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
    config: Record<string, string | number | boolean>,
    perRequest: number,
    read: (slot: number, result: unknown) => T,
  ): Promise<T[]> {
    const chunks: number[][] = [];
    for (let i = 0; i < slots.length; i += perRequest) chunks.push(slots.slice(i, i + perRequest));
    const results = await mapBounded(chunks, this.concurrency, async (chunk) => {
      const outcomes = await this.rpc.batch(chunk.map((slot) => ({ method: "getBlock", params: [slot, config] })));
      return chunk.map((slot, i) => read(slot, blockResult(slot, outcomes[i])));
    });
    return results.flat();
  }
}

function blockResult(slot: number, outcome: JsonRpcOutcome | undefined): unknown {
  if (!outcome) throw new RpcUnavailableError(`Solana RPC getBlock ${slot}: no answer`);
  if (!outcome.ok) {
    const why = SLOT_SKIPPED_ERROR_CODES.has(outcome.code) ? " although getBlocks listed it" : "";
    throw new RpcUnavailableError(`Solana RPC getBlock ${slot} failed${why}: ${outcome.code} ${outcome.message}`, {
      code: outcome.code,
      slot,
    });
  }
  if (outcome.result === null) throw new RpcUnavailableError(`Solana RPC getBlock ${slot}: block not available yet`);
  return outcome.result;
}
