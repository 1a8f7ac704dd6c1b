import { createEvmSender } from "@mp/chain-evm";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { type ReorgTransaction, sendNative } from "@mp/test-nodes/evm";
import type { Hex } from "viem";
import { freshAddress } from "../../packages/treasury/test/support/evm-treasury.ts";
import { catchUp } from "../indexer/indexer-fixtures.ts";
import type { EvmReconcileChain } from "../treasury/evm-reconcile-chain.ts";
import { evmBroadcast } from "./broadcast-refusals.ts";
import type { MoneyWorld } from "./money-world.ts";

const ETH = 10n ** 18n;

/**
 * anvil as the money fuzz drives it: ETH sends on BASE, the real indexer recording the treasury's
 * receipts. anvil mines each transaction at once unless held (automine off: they wait for the next
 * mine step). A reorg (anvil_reorg) replaces the last blocks with a branch of the same length that
 * carries their transactions again, ours mined again, moved to the branch's last block (`mempool`),
 * or dropped (with every later one of ours, which could not land without them).
 */
export function evmWorld(db: Database, c: EvmReconcileChain): MoneyWorld {
  const { node, indexer } = c;
  const rawOf = (hash: Hex) =>
    node.publicClient.request({
      method: "eth_getRawTransactionByHash" as never,
      params: [hash] as never,
    }) as Promise<Hex>;
  return {
    family: "evm",
    chain: "BASE",
    asset: "ETH",
    db,
    confirmations: 2,
    amounts: { min: 1n, max: ETH / 2n, unaffordable: 10n ** 30n },
    refused: [0n, -1n],
    hostile: [1n],
    broadcasts: evmBroadcast,
    sender: (fetch) => createEvmSender({ config: c.config, keys: c.keys, db, logger: silentLogger(), fetch }),
    recipient: () => freshAddress(),
    async fund() {
      await sendNative(node, c.treasury, 10n * ETH);
      await catchUp(indexer);
    },
    height: () => node.blockNumber(),
    async mine(count) {
      await node.mine(count);
      await catchUp(indexer);
    },
    hold: (on) => node.setAutomine(!on),
    async reorg(depth, ours, fate) {
      const head = await node.blockNumber();
      const mine = new Set(ours.map((h) => h.toLowerCase()));
      const again: ReorgTransaction[] = [];
      for (let offset = 0; offset < depth; offset++) {
        const block = await node.publicClient.getBlock({ blockNumber: BigInt(head - depth + 1 + offset) });
        for (const hash of block.transactions) {
          const ourOwn = mine.has(hash.toLowerCase());
          if (ourOwn && fate === "drop") continue;
          const at = ourOwn && fate === "mempool" ? depth - 1 : offset;
          again.push({ transaction: await rawOf(hash), blockOffset: at });
        }
      }
      await node.reorg(depth, again);
      await catchUp(indexer);
    },
    async txHeight(txHash) {
      const receipt = await node.publicClient.getTransactionReceipt({ hash: txHash as Hex }).catch(() => null);
      return receipt ? Number(receipt.blockNumber) : undefined;
    },
    // A fresh recipient: whatever it holds came from our sends.
    paid: (to) => node.publicClient.getBalance({ address: to as Hex }),
    reconcileTargets: () => c.targets(),
  };
}
