import type { ChainAsset, ChainConfig } from "@mp/core";
import type { HoldingsReader } from "@mp/treasury/ports";
import { createPublicClient, encodeFunctionData, erc20Abi, type Hex, http } from "viem";

/** Addresses per JSON-RPC batch (balances are asked per address and asset). */
const CHUNK = 200;

/** What reconciliation reads from an EVM node: native and ERC-20 balances, and receipts' fees. */
export function createEvmHoldingsReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader {
  const client = createPublicClient({
    transport: http(config.rpcUrl, { timeout: 30_000, batch: { batchSize: CHUNK } }),
  });
  const rpc = <T>(method: string, params: unknown[]): Promise<T> =>
    client.request({ method: method as "eth_chainId", params: params as never }) as Promise<T>;
  const balanceOf = async (asset: ChainAsset, owner: string): Promise<bigint> => {
    if (asset.address === null) return BigInt(await rpc<Hex>("eth_getBalance", [owner, "latest"]));
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [owner as Hex] });
    const answer = await rpc<Hex>("eth_call", [{ to: asset.address, data }, "latest"]);
    return answer === "0x" ? 0n : BigInt(answer);
  };
  return {
    async holdings(addresses) {
      // Asked first, always: a chain where we hold nothing yet must still prove its node answers.
      await rpc<Hex>("eth_blockNumber", []);
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
      const receipt = await rpc<{ gasUsed: Hex; effectiveGasPrice: Hex; l1Fee?: Hex } | null>(
        "eth_getTransactionReceipt",
        [txHash],
      );
      if (!receipt) return null;
      // OP-stack chains (Base, Optimism) charge the L1 data fee on top, reported in the receipt.
      return BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) + BigInt(receipt.l1Fee ?? "0x0");
    },
  };
}
