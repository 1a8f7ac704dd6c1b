import type { ChainConfig } from "@mp/core";
import { validatedAnswer } from "@mp/rpc";
import { createClient } from "viem";
import type { z } from "zod";
import { evmTransport } from "../evm-transport.ts";
import { blockAnswer, quantityAnswer } from "./evm-answers.ts";
import { reusedFor } from "./reused-promise.ts";

/** Any method, answer unchecked until its schema has checked it. */
type UntypedRpc = { Parameters: unknown[]; ReturnType: unknown };

/** Fees read from the node are reused this long (one look per block or so, not one per send). */
const FEE_TTL_MS = 1_000;

export type EvmFees =
  | { type: "eip1559"; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: "legacy"; gasPrice: bigint };

type RpcBlock = z.output<typeof blockAnswer>;

/**
 * One EVM chain's node as the treasury talks to it: raw JSON-RPC, the chain id and the fees a
 * transaction signed now offers, read once and shared by every signer on the chain (the treasury's
 * sender and the sweeper's deposit-address signers).
 */
export interface EvmNode {
  /** One JSON-RPC call, its answer checked by `answer` (evm-answers.ts): RpcAnswerError when it does not fit. */
  rpc<S extends z.ZodType>(method: string, params: unknown[], answer: S): Promise<z.output<S>>;
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
  const client = createClient({
    transport: evmTransport(config.rpcUrl, {
      timeoutMs: 30_000,
      batchSize: options.batch ? 200 : undefined,
      fetch: options.fetch,
    }),
  });
  const rpc = async <S extends z.ZodType>(method: string, params: unknown[], answer: S): Promise<z.output<S>> =>
    validatedAnswer(answer, await client.request<UntypedRpc>({ method, params }), method);
  let lastBaseFee: bigint | null = null;

  const readFees = async (): Promise<EvmFees> => {
    const block = await rpc("eth_getBlockByNumber", ["latest", false], blockAnswer);
    if (block.baseFeePerGas === undefined || block.baseFeePerGas === null) {
      return { type: "legacy", gasPrice: BigInt(await rpc("eth_gasPrice", [], quantityAnswer)) };
    }
    const base = BigInt(block.baseFeePerGas);
    lastBaseFee = base;
    const tip = BigInt(await rpc("eth_maxPriorityFeePerGas", [], quantityAnswer));
    // Twice the base fee: still included after six full blocks in a row raise it by 12.5% each.
    return { type: "eip1559", maxFeePerGas: base * 2n + tip, maxPriorityFeePerGas: tip };
  };

  const chainId = reusedFor(Number.POSITIVE_INFINITY, async () =>
    Number(BigInt(await rpc("eth_chainId", [], quantityAnswer))),
  );
  const fees = reusedFor(FEE_TTL_MS, readFees);

  return {
    rpc,
    chainId: chainId.get,
    fees: fees.get,
    async head() {
      const block = await rpc("eth_getBlockByNumber", ["latest", false], blockAnswer);
      if (block.baseFeePerGas) lastBaseFee = BigInt(block.baseFeePerGas);
      return block;
    },
    lastBaseFee: () => lastBaseFee,
  };
}
