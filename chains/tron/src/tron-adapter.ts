import type { AddressMatcher, BlockHeader, ChainAdapter, ChainConfig, Logger, ObservedTransfer } from "@mp/core";
import {
  ChainMisconfiguredError,
  ChainMovedError,
  ConfigError,
  chainFamily,
  expectedNetworks,
  isEmptyRange,
  mapBounded,
} from "@mp/core";
import { z } from "zod";
import {
  type ApiBlockHeader,
  blockHeaderOnlySchema,
  blockListSchema,
  blockSchema,
  transactionInfoListSchema,
} from "./api-schemas.ts";
import { extractBlockTransfers } from "./block-transfers.ts";
import { MAX_BLOCKS_PER_LIMIT_NEXT, TRON_NETWORKS } from "./constants.ts";
import { TronHttpClient } from "./http-api-client.ts";
import { verifyInternalTransactions } from "./internal-transactions-check.ts";
import { verifyTronNode } from "./node-capabilities.ts";
import { TronApiError } from "./tron-api-error.ts";
import { resolveTronAssets, type TronAssets } from "./tron-assets.ts";

export interface TronAdapterOptions {
  fetch?: typeof globalThis.fetch;
  logger?: Logger;
  /** Sent as `TRON-PRO-API-KEY` (TronGrid). */
  apiKey?: string;
  /** Heights fetched at once by `scan` (each is a getblockbynum + a gettransactioninfobyblocknum). Default 4. */
  concurrency?: number;
  /** Blocks per `getblockbylimitnext` call in `headers` (1..100, default 20: the answer holds full blocks). */
  headersPerRequest?: number;
  /** Per HTTP request, default 30 s. */
  timeoutMs?: number;
}

/**
 * The Tron ChainAdapter over a java-tron full node's HTTP API (`/wallet/*`, hex addresses).
 * Heights are block numbers; every height has a block. `head` = `getnowblock`; `headers` =
 * `getblockbylimitnext` in chunks; `scan` = `getblockbynum` + `gettransactioninfobyblocknum` per
 * height with bounded concurrency, matched in memory (the cost does not depend on the watch set).
 * Answers for a range must form one chain (parent links) or the call fails, retryably.
 */
export function createTronAdapter(config: ChainConfig, options: TronAdapterOptions = {}): ChainAdapter {
  if (chainFamily(config.chain) !== "tron") {
    throw new ConfigError(`CHAINS_CONFIG.${config.chain}`, "is not a Tron chain");
  }
  let assets: TronAssets;
  try {
    assets = resolveTronAssets(config);
  } catch (error) {
    throw new ConfigError(`CHAINS_CONFIG.${config.chain}.tokens`, error instanceof Error ? error.message : "invalid");
  }
  const api = new TronHttpClient({
    url: config.rpcUrl,
    setting: `CHAINS_CONFIG.${config.chain}.rpcUrl`,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    apiKey: options.apiKey,
  });
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const headersPerRequest = Math.min(MAX_BLOCKS_PER_LIMIT_NEXT, Math.max(1, options.headersPerRequest ?? 20));
  const logger = options.logger;

  async function blockHeaders(from: number, to: number): Promise<BlockHeader[]> {
    const endpoint = "/wallet/getblockbylimitnext";
    const answer = await api.post(endpoint, { startNum: from, endNum: to + 1 }, blockListSchema);
    const blocks = [...(answer.block ?? [])].sort(
      (a, b) => a.block_header.raw_data.number - b.block_header.raw_data.number,
    );
    if (blocks.length !== to - from + 1) {
      throw new TronApiError(endpoint, `asked for blocks ${from}..${to}, got ${blocks.length}`, {
        details: { from, to },
      });
    }
    return blocks.map((block, i) => toHeader(block, from + i, endpoint));
  }

  async function scanHeight(height: number, watch: AddressMatcher) {
    const [block, infos] = await Promise.all([
      api.post("/wallet/getblockbynum", { num: height }, blockSchema.or(missingBlock)),
      api.post("/wallet/gettransactioninfobyblocknum", { num: height }, transactionInfoListSchema),
    ]);
    if (block === null) {
      throw new TronApiError("/wallet/getblockbynum", `block ${height} not available`, { details: { height } });
    }
    const header = toHeader(block, height, "/wallet/getblockbynum");
    const transfers = extractBlockTransfers(block, infos, { height, blockHash: header.hash }, assets, watch);
    return { header, transfers };
  }

  return {
    chain: config.chain,

    async head() {
      const block = await api.post("/wallet/getnowblock", {}, blockHeaderOnlySchema);
      return block.block_header.raw_data.number;
    },

    /**
     * The node must keep transaction receipts (verifyTronNode), and its block 0 must be the
     * genesis of the configured network (mainnet; testnet: Nile or
     * Shasta). `regtest` is a private chain or the test node, whose genesis is its own: any.
     */
    async verifyNetwork() {
      const networks = expectedNetworks(config.network, TRON_NETWORKS);
      if (networks !== null) {
        const genesis = await api.post("/wallet/getblockbynum", { num: 0 }, blockHeaderOnlySchema);
        const id = genesis.blockID.toLowerCase();
        if (!networks.some((network) => network.genesis === id)) {
          throw new ChainMisconfiguredError(
            `CHAINS_CONFIG.${config.chain}.network is ${config.network} (${networks.map((n) => n.name).join(" or ")}) but the node at CHAINS_CONFIG.${config.chain}.rpcUrl serves a chain whose block 0 is ${id}`,
            { details: { network: config.network, genesisBlockId: id } },
          );
        }
      }
      // What the node must offer (node-capabilities.ts), on every network, regtest included.
      await verifyTronNode(api, config.chain);
      // The indexer's own need: TRX paid by contracts.
      await verifyInternalTransactions(api, config.chain);
    },

    async headers(range) {
      if (isEmptyRange(range)) return [];
      const headers: BlockHeader[] = [];
      for (let from = range.from; from <= range.to; from += headersPerRequest) {
        const chunk = await blockHeaders(from, Math.min(range.to, from + headersPerRequest - 1));
        for (const header of chunk) {
          assertLinked(headers.at(-1), header, "/wallet/getblockbylimitnext");
          headers.push(header);
        }
      }
      return headers;
    },

    async scan(range, watch) {
      if (isEmptyRange(range)) return [];
      const started = performance.now();
      const heights = Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i);
      const perHeight = await mapBounded(heights, concurrency, (height) => scanHeight(height, watch));
      const transfers: ObservedTransfer[] = [];
      let previous: BlockHeader | undefined;
      for (const { header, transfers: found } of perHeight) {
        assertLinked(previous, header, "/wallet/getblockbynum");
        previous = header;
        for (const transfer of found) transfers.push(transfer);
      }
      logger?.debug(
        { from: range.from, to: range.to, transfers: transfers.length, ms: Math.round(performance.now() - started) },
        "tron scan",
      );
      return transfers;
    },
  };
}

/** `getblockbynum` answers `{}` for a height the node does not have. */
const missingBlock = z
  .object({})
  .strict()
  .transform(() => null);

function toHeader(block: ApiBlockHeader, height: number, endpoint: string): BlockHeader {
  const number = block.block_header.raw_data.number;
  // A blockID starts with the block number as 8 big-endian bytes.
  if (number !== height || Number.parseInt(block.blockID.slice(0, 16), 16) !== height) {
    throw new TronApiError(endpoint, `asked for block ${height}, got ${number} (${block.blockID})`, {
      details: { height },
    });
  }
  return {
    height,
    hash: block.blockID.toLowerCase(),
    parentHash: block.block_header.raw_data.parentHash.toLowerCase(),
  };
}

function assertLinked(previous: BlockHeader | undefined, header: BlockHeader, endpoint: string): void {
  if (previous !== undefined && header.parentHash !== previous.hash) {
    throw new ChainMovedError(`Tron chain changed at block ${header.height} during the request (${endpoint}); retry`, {
      height: header.height,
    });
  }
}
