import type { ChainAsset, ChainConfig } from "@mp/core";
import type { HoldingsReader } from "@mp/treasury/ports";
import { encodeFunctionData, erc20Abi, type Hex } from "viem";
import { dataAnswer, feeReceiptAnswer, quantityAnswer } from "./send/evm-answers.ts";
import { createEvmNode } from "./send/evm-node.ts";

/** Addresses per JSON-RPC batch (balances are asked per address and asset). */
const CHUNK = 200;

/** What reconciliation reads from an EVM node: native and ERC-20 balances, and receipts' fees. */
export function createEvmHoldingsReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader {
  // Batched: the balances of a chunk of addresses go out as one JSON-RPC batch.
  const { rpc } = createEvmNode(config, { batch: true });
  const balanceOf = async (asset: ChainAsset, owner: string): Promise<bigint> => {
    if (asset.address === null) return BigInt(await rpc("eth_getBalance", [owner, "latest"], quantityAnswer));
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [owner as Hex] });
    const answer = await rpc("eth_call", [{ to: asset.address, data }, "latest"], dataAnswer);
    return answer === "0x" ? 0n : BigInt(answer);
  };
  return {
    async holdings(addresses) {
      // Asked first, always: a chain where we hold nothing yet must still prove its node answers.
      await rpc("eth_blockNumber", [], quantityAnswer);
      const out = new Map(assets.map((a) => [a.asset, 0n]));
      for (let i = 0; i < addresses.length; i += CHUNK) {
        const chunk = addresses.slice(i, i + CHUNK);
        for (const asset of assets) {
          const balances = await Promise.all(chunk.map((owner) => balanceOf(asset, owner)));
          out.set(asset.asset, (out.get(asset.asset) ?? 0n) + balances.reduce((a, b) => a + b, 0n));
        }
      }
      return out;
    },
    async feePaid(txHash) {
      const receipt = await rpc("eth_getTransactionReceipt", [txHash], feeReceiptAnswer.nullable());
      if (!receipt) return null;
      // OP-stack chains (Base, Optimism) charge the L1 data fee on top, reported in the receipt.
      return BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) + BigInt(receipt.l1Fee ?? "0x0");
    },
  };
}
