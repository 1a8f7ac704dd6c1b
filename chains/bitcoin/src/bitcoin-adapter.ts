import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import type { BlockHeader, ChainAdapter, ChainConfig, Logger, ObservedTransfer, ScanRange } from "@mp/core";
import { ChainMisconfiguredError, ChainMovedError, ConfigError, chainFamily, isEmptyRange } from "@mp/core";
import { type FetchLike, JsonRpcError, type JsonRpcRequest, RpcUnavailableError } from "@mp/rpc";
import { bitcoinRpc } from "./bitcoin-rpc.ts";
import { transfersInBlock } from "./block-transfers.ts";
import { RPC_CODES } from "./rpc-codes.ts";
import {
  blockCountSchema,
  blockchainInfoSchema,
  blockHashSchema,
  blockHeaderSchema,
  blockSchema,
  type RpcBlock,
} from "./rpc-schemas.ts";

export interface BitcoinAdapterOptions {
  fetch?: FetchLike;
  logger?: Logger;
  /** getblock verbosity-2 answers per HTTP request: big blocks make big answers. */
  blocksPerRequest?: number;
  /** getblockhash / getblockheader calls per HTTP request. */
  headersPerRequest?: number;
  /** Per HTTP request (default 30 s). */
  timeoutMs?: number;
}

/** parentHash of the genesis block, which has none. */
export const GENESIS_PARENT_HASH = "0".repeat(64);

// A full mainnet block is tens of MB of verbosity-2 JSON: a few per request keeps strings bounded.
const DEFAULT_BLOCKS_PER_REQUEST = 4;
const DEFAULT_HEADERS_PER_REQUEST = 500;

/**
 * ChainAdapter for Bitcoin over Bitcoin Core JSON-RPC: getblockcount, getblockhash, getblockheader,
 * getblock (verbosity 2) and, once, getblockchaininfo to refuse a node of another network.
 * Every range answer is checked to be one chain (parent links, all blocks still active), so a reorg
 * racing a request becomes a retryable error instead of a mixed answer.
 */
export function createBitcoinAdapter(config: ChainConfig, options: BitcoinAdapterOptions = {}): ChainAdapter {
  if (chainFamily(config.chain) !== "bitcoin") {
    throw new ConfigError(`CHAINS_CONFIG.${config.chain}`, "is not a Bitcoin chain");
  }
  const chain = config.chain;
  const network = bitcoinNetwork(config.network);
  const rpc = bitcoinRpc(config, options);
  const blocksPerRequest = Math.max(1, options.blocksPerRequest ?? DEFAULT_BLOCKS_PER_REQUEST);
  const headersPerRequest = Math.max(1, options.headersPerRequest ?? DEFAULT_HEADERS_PER_REQUEST);
  let networkChecked: Promise<void> | null = null;

  /**
   * Once per adapter (and before any read): the node must serve the configured network
   * (getblockchaininfo.chain). A failed check is retried later; a mismatch stays.
   */
  function checkNetwork(): Promise<void> {
    networkChecked ??= (async () => {
      const info = rpc.validated(blockchainInfoSchema, await rpc.call("getblockchaininfo"), "getblockchaininfo");
      if (!network.coreChainNames.includes(info.chain)) {
        throw new ChainMisconfiguredError(
          `CHAINS_CONFIG.${chain}.network is ${network.name} but the node at CHAINS_CONFIG.${chain}.rpcUrl serves the "${info.chain}" chain`,
          { details: { network: network.name, chain: info.chain } },
        );
      }
    })().catch((error: unknown) => {
      if (!(error instanceof ChainMisconfiguredError)) networkChecked = null;
      throw error;
    });
    return networkChecked;
  }

  async function blockHashes(range: ScanRange): Promise<string[]> {
    const hashes: string[] = [];
    for (const heights of chunks(range, headersPerRequest)) {
      const results = await rpc.all(heights.map((height) => ({ method: "getblockhash", params: [height] })));
      for (const result of results) hashes.push(rpc.validated(blockHashSchema, result, "getblockhash"));
    }
    return hashes;
  }

  return {
    chain,

    verifyNetwork: checkNetwork,

    async head() {
      await checkNetwork();
      return rpc.validated(blockCountSchema, await rpc.call("getblockcount"), "getblockcount");
    },

    async headers(range) {
      if (isEmptyRange(range)) return [];
      await checkNetwork();
      const hashes = await blockHashes(range);
      const headers: BlockHeader[] = [];
      for (let start = 0; start < hashes.length; start += headersPerRequest) {
        const calls: JsonRpcRequest[] = hashes
          .slice(start, start + headersPerRequest)
          .map((hash) => ({ method: "getblockheader", params: [hash, true] }));
        const results = await rpc.all(calls);
        results.forEach((result, offset) => {
          const header = rpc.validated(blockHeaderSchema, result, "getblockheader");
          const height = range.from + start + offset;
          assertActiveBlock(header, height, hashes[start + offset]);
          const parentHash = header.previousblockhash ?? GENESIS_PARENT_HASH;
          assertLinked(headers.at(-1), parentHash, height);
          headers.push({ height, hash: header.hash, parentHash });
        });
      }
      return headers;
    },

    async scan(range, watch) {
      if (isEmptyRange(range)) return [];
      await checkNetwork();
      const hashes = await blockHashes(range);
      const transfers: ObservedTransfer[] = [];
      let previous: BlockHeader | undefined;
      for (let start = 0; start < hashes.length; start += blocksPerRequest) {
        const calls: JsonRpcRequest[] = hashes
          .slice(start, start + blocksPerRequest)
          .map((hash) => ({ method: "getblock", params: [hash, 2] }));
        const results = await rpc.all(calls).catch((error: unknown) => {
          throw prunedBlock(error, chain, range.from + start) ?? error;
        });
        results.forEach((result, offset) => {
          const block: RpcBlock = rpc.validated(blockSchema, result, "getblock");
          const height = range.from + start + offset;
          assertActiveBlock(block, height, hashes[start + offset]);
          const parentHash = block.previousblockhash ?? GENESIS_PARENT_HASH;
          assertLinked(previous, parentHash, height);
          previous = { height, hash: block.hash, parentHash };
          for (const transfer of transfersInBlock(block, { chain, network, watch })) transfers.push(transfer);
        });
      }
      return transfers;
    },
  };
}

/**
 * A pruned node no longer has the data of a block the indexer must read (getblock: RPC_MISC_ERROR
 * "Block not available (pruned data)"): a configuration fault, never a retry. Pruning is allowed
 * only while the node keeps every block from the indexer's position on (docs/chains.md "Node requirements").
 */
function prunedBlock(error: unknown, chain: ChainConfig["chain"], from: number): ChainMisconfiguredError | undefined {
  if (!(error instanceof JsonRpcError) || error.rpcCode !== RPC_CODES.MISC_ERROR) return undefined;
  return new ChainMisconfiguredError(
    `the Bitcoin node at CHAINS_CONFIG.${chain}.rpcUrl has pruned blocks the indexer still has to read (from height ${from}: ${error.rpcMessage}); run it with a larger -prune (or none), or resync it`,
    { details: { chain, capability: "blocks", from } },
  );
}

function* chunks(range: ScanRange, size: number): Generator<number[]> {
  for (let start = range.from; start <= range.to; start += size) {
    const heights: number[] = [];
    for (let height = start; height <= Math.min(range.to, start + size - 1); height++) heights.push(height);
    yield heights;
  }
}

/** The block fetched by hash must still be the active block at that height. */
function assertActiveBlock(
  block: { hash: string; height: number; confirmations: number },
  height: number,
  requestedHash: string | undefined,
): void {
  if (block.hash !== requestedHash || block.height !== height) {
    throw new RpcUnavailableError(`Bitcoin RPC answered block ${block.hash} for height ${height}`, { height });
  }
  if (block.confirmations < 0) {
    throw new ChainMovedError(`Bitcoin block ${height} was reorganised away during the request; retry`, {
      height,
      hash: block.hash,
    });
  }
}

function assertLinked(previous: BlockHeader | undefined, parentHash: string, height: number): void {
  if (previous !== undefined && previous.hash !== parentHash) {
    throw new ChainMovedError(`Bitcoin chain changed at height ${height} during the request; retry`, { height });
  }
}
