import {
  type AddressMatcher,
  type BlockHeader,
  type ChainAdapter,
  type ChainConfig,
  ConfigError,
  chainFamily,
  type Logger,
  type ObservedTransfer,
  type ScanRange,
  ServiceUnavailableError,
  ValidationError,
} from "@mp/core";
import { bitcoinNetwork } from "./bitcoin-networks.ts";
import { BitcoinRpcClient, type FetchLike, type RpcCall } from "./bitcoin-rpc-client.ts";
import { transfersInBlock } from "./block-transfers.ts";
import { parseRpcResult as parse } from "./rpc-result.ts";
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
  requestTimeoutMs?: number;
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
  const rpc = new BitcoinRpcClient(config.rpcUrl, {
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }),
    setting: `CHAINS_CONFIG.${chain}.rpcUrl`,
  });
  const blocksPerRequest = Math.max(1, options.blocksPerRequest ?? DEFAULT_BLOCKS_PER_REQUEST);
  const headersPerRequest = Math.max(1, options.headersPerRequest ?? DEFAULT_HEADERS_PER_REQUEST);
  let networkChecked: Promise<void> | null = null;

  /** Once per adapter: the node must serve the configured network. A failed check is retried later. */
  function checkNetwork(): Promise<void> {
    networkChecked ??= (async () => {
      const info = parse(blockchainInfoSchema, await rpc.call("getblockchaininfo"), "getblockchaininfo");
      if (!network.coreChainNames.includes(info.chain)) {
        throw new ConfigError(
          `CHAINS_CONFIG.${chain}.network`,
          `is ${network.name} but the node serves the "${info.chain}" chain`,
        );
      }
    })().catch((error: unknown) => {
      if (!(error instanceof ConfigError)) networkChecked = null;
      throw error;
    });
    return networkChecked;
  }

  async function blockHashes(range: ScanRange): Promise<string[]> {
    const hashes: string[] = [];
    for (const heights of chunks(range, headersPerRequest)) {
      const results = await rpc.batch(heights.map((height) => ({ method: "getblockhash", params: [height] })));
      for (const result of results) hashes.push(parse(blockHashSchema, result, "getblockhash"));
    }
    return hashes;
  }

  return {
    chain,

    async head() {
      await checkNetwork();
      return parse(blockCountSchema, await rpc.call("getblockcount"), "getblockcount");
    },

    async headers(range) {
      checkRange(range);
      await checkNetwork();
      const hashes = await blockHashes(range);
      const headers: BlockHeader[] = [];
      for (let start = 0; start < hashes.length; start += headersPerRequest) {
        const calls: RpcCall[] = hashes
          .slice(start, start + headersPerRequest)
          .map((hash) => ({ method: "getblockheader", params: [hash, true] }));
        const results = await rpc.batch(calls);
        results.forEach((result, offset) => {
          const header = parse(blockHeaderSchema, result, "getblockheader");
          const height = range.from + start + offset;
          assertActiveBlock(header, height, hashes[start + offset]);
          const parentHash = header.previousblockhash ?? GENESIS_PARENT_HASH;
          assertLinked(headers.at(-1), parentHash, height);
          headers.push({ height, hash: header.hash, parentHash });
        });
      }
      return headers;
    },

    async scan(range, watch: AddressMatcher) {
      checkRange(range);
      await checkNetwork();
      const hashes = await blockHashes(range);
      const transfers: ObservedTransfer[] = [];
      let previous: BlockHeader | undefined;
      for (let start = 0; start < hashes.length; start += blocksPerRequest) {
        const calls: RpcCall[] = hashes
          .slice(start, start + blocksPerRequest)
          .map((hash) => ({ method: "getblock", params: [hash, 2] }));
        const results = await rpc.batch(calls);
        results.forEach((result, offset) => {
          const block: RpcBlock = parse(blockSchema, result, "getblock");
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

function checkRange(range: ScanRange): void {
  if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to) || range.from < 0 || range.to < range.from) {
    throw new ValidationError(`invalid block range ${range.from}..${range.to}`, "range");
  }
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
    throw new ServiceUnavailableError(`Bitcoin node answered block ${block.hash} for height ${height}`);
  }
  if (block.confirmations < 0) {
    throw new ServiceUnavailableError(`Bitcoin block ${height} was reorganised away during the request; retry`, {
      details: { height, hash: block.hash },
    });
  }
}

function assertLinked(previous: BlockHeader | undefined, parentHash: string, height: number): void {
  if (previous !== undefined && previous.hash !== parentHash) {
    throw new ServiceUnavailableError(`Bitcoin chain changed at height ${height} during the request; retry`, {
      details: { height },
    });
  }
}
