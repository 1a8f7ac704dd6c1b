import type { ChainAsset, ChainConfig } from "@mp/core";
import type { HoldingsReader } from "@mp/treasury/ports";
import { TronNode } from "./send/tron-node.ts";
import { base58ToHex } from "./tron-address.ts";

/** What reconciliation reads from a Tron node: TRX and TRC-20 balances, and receipts' fees. */
export function createTronHoldingsReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader {
  const node = new TronNode({ url: config.rpcUrl, setting: `CHAINS_CONFIG.${config.chain}.rpcUrl` });
  /** TRC-20 balanceOf(owner), asked of the node without a transaction. */
  const tokenUnits = async (contractHex: string, ownerHex: string): Promise<bigint> => {
    const call = await node.constantCall(ownerHex, contractHex, `70a08231${ownerHex.slice(2).padStart(64, "0")}`);
    return call.result === "" ? 0n : BigInt(`0x${call.result}`);
  };
  return {
    async holdings(addresses) {
      await node.head();
      const out = new Map(assets.map((a) => [a.asset, 0n]));
      for (const owner of addresses) {
        const ownerHex = base58ToHex(owner);
        for (const asset of assets) {
          const units =
            asset.address === null
              ? await node.balance(ownerHex)
              : await tokenUnits(base58ToHex(asset.address), ownerHex);
          out.set(asset.asset, (out.get(asset.asset) ?? 0n) + units);
        }
      }
      return out;
    },
    async feePaid(txHash) {
      // What the chain charged (bandwidth and energy burnt, in sun), from its receipt.
      const info = await node.transactionInfo(txHash);
      return info ? BigInt(info.fee ?? 0) : null;
    },
  };
}
