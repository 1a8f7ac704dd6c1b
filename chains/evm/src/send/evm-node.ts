import type { ChainConfig } from "@mp/core";
import { createPublicClient, type Hex, http } from "viem";
import { reusedFor } from "./reused-promise.ts";

/** Fees read from the node are reused this long (one look per block or so, not one per send). */
const FEE_TTL_MS = 1_000;

export type EvmFees =
  | { type: "eip1559"; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: "legacy"; gasPrice: bigint };

interface RpcBlock {
  number: Hex;
  hash: Hex;
  baseFeePerGas?: Hex | null;
}

/**
 * One EVM chain's node as the treasury talks to it: raw JSON-RPC, the chain id and the fees a
 * transaction signed now offers, read once and shared by every signer on the chain (the treasury's
 * sender and the sweeper's deposit-address signers).
 */
export interface EvmNode {
  rpc<T>(method: string, params: unknown[]): Promise<T>;
  chainId(): Promise<number>;
  /** EIP-1559 where the chain has a base fee (cap: twice the base fee plus the tip), else legacy gasPrice. */
  fees(): Promise<EvmFees>;
  /** The latest block: its height, and its base fee remembered for lastBaseFee(). */
  head(): Promise<RpcBlock>;
  /** The base fee of the latest block read (head() or fees()); null before any or on a legacy chain. */
  lastBaseFee(): bigint | null;
}

/**
 * `batch`: concurrent requests go out as one JSON-RPC batch (the sweeper reads a thousand addresses
 * at once); the treasury's sender keeps one request per call.
 */
export function createEvmNode(
  config: ChainConfig,
  options: { fetch?: typeof globalThis.fetch | undefined; batch?: boolean } = {},
): EvmNode {
  const client = createPublicClient({
    transport: http(config.rpcUrl, {
      timeout: 30_000,
      ...(options.batch ? { batch: { batchSize: 200 } } : {}),
      ...(options.fetch === undefined ? {} : { fetchFn: options.fetch }),
    }),
  });
  const rpc = <T>(method: string, params: unknown[]): Promise<T> =>
    client.request({ method: method as "eth_chainId", params: params as never }) as Promise<T>;
  let lastBaseFee: bigint | null = null;

  const readFees = async (): Promise<EvmFees> => {
    const block = await rpc<RpcBlock>("eth_getBlockByNumber", ["latest", false]);
    if (block.baseFeePerGas === undefined || block.baseFeePerGas === null) {
      return { type: "legacy", gasPrice: BigInt(await rpc<Hex>("eth_gasPrice", [])) };
    }
    const base = BigInt(block.baseFeePerGas);
    lastBaseFee = base;
    const tip = BigInt(await rpc<Hex>("eth_maxPriorityFeePerGas", []));
    // Twice the base fee: still included after six full blocks in a row raise it by 12.5% each.
    return { type: "eip1559", maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip };
  };

  const chainId = reusedFor(Number.POSITIVE_INFINITY, async () => Number(BigInt(await rpc<Hex>("eth_chainId", []))));
  const fees = reusedFor(FEE_TTL_MS, readFees);

  return {
    rpc,
    chainId: chainId.get,
    fees: fees.get,
    async head() {
      const block = await rpc<RpcBlock>("eth_getBlockByNumber", ["latest", false]);
      if (block.baseFeePerGas) lastBaseFee = BigInt(block.baseFeePerGas);
      return block;
    },
    lastBaseFee: () => lastBaseFee,
  };
}
