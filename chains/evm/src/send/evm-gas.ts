import type { SendOrder } from "@mp/treasury/ports";
import type { Address, Hex } from "viem";
import { quantityAnswer } from "./evm-answers.ts";
import type { EvmNode } from "./evm-node.ts";

/** A gas estimate per (asset, recipient) is reused this long. */
const GAS_TTL_MS = 60_000;

export type EvmCall = { to: Address; value: bigint; data?: Hex };

/** The gas limit an order's call is signed with, estimated by the node and reused per (asset, recipient). */
export function createGasEstimator(node: EvmNode, from: Address): (order: SendOrder, call: EvmCall) => Promise<bigint> {
  const gasCache = new Map<string, { at: number; gas: bigint }>();
  return async (order, call) => {
    const cacheKey = `${order.asset}|${call.to}|${order.to.toLowerCase()}`;
    const cached = gasCache.get(cacheKey);
    if (cached && performance.now() - cached.at < GAS_TTL_MS) return cached.gas;
    const estimate = BigInt(
      await node.rpc(
        "eth_estimateGas",
        [
          {
            from,
            to: call.to,
            value: `0x${call.value.toString(16)}`,
            ...(call.data ? { data: call.data } : {}),
          },
        ],
        quantityAnswer,
      ),
    );
    // A plain transfer to an account costs exactly 21000; anything running code gets a margin.
    const gas = estimate === 21_000n ? estimate : estimate + estimate / 4n;
    gasCache.set(cacheKey, { at: performance.now(), gas });
    return gas;
  };
}
