import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { TronKey } from "@mp/test-nodes/tron";
import { createTronSender } from "../../chains/tron/src/send/tron-sender.ts";
import type { TronTreasuryHarness } from "../../packages/treasury/test/support/tron-treasury.ts";
import { catchUp } from "../indexer/indexer-fixtures.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";
import { tronBroadcast } from "./broadcast-refusals.ts";
import type { MoneyWorld } from "./money-world.ts";

const TRX = 1_000_000n;
let recipients = 0;

/**
 * The Tron test node as the money fuzz drives it: TRX sends, the real indexer recording the
 * treasury's receipts. Its reorg replaces blocks at the same heights: our transactions in them land
 * again, or (`drop`) vanish; it has no mempool to put them back into, so `mempool` lands them again.
 */
export function tronWorld(db: Database, h: TronTreasuryHarness): MoneyWorld {
  return {
    family: "tron",
    chain: "TRON",
    asset: "TRX",
    db,
    confirmations: 2,
    amounts: { min: 1n, max: 50n * TRX, unaffordable: 10n ** 15n },
    refused: [0n, -1n],
    // One sun to a new account: the account's creation fee is the treasury's.
    hostile: [1n],
    broadcasts: tronBroadcast,
    sender: (fetch) => createTronSender({ config: h.config, keys: h.keys, db, logger: silentLogger(), fetch }),
    recipient: () => TronKey.fromLabel(`money-fuzz-recipient:${process.pid}:${++recipients}`).address,
    async fund() {
      h.node.transfer(h.treasury, 500n * TRX);
      await h.mine(1);
    },
    height: async () => h.node.head(),
    mine: (count) => h.mine(count),
    hold: (on) => h.node.hold(on),
    async reorg(depth, ours, fate) {
      h.node.reorg(depth, fate === "drop" ? { drop: ours } : {});
      await catchUp(h.indexer);
    },
    txHeight: async (txHash) => h.node.transaction(txHash)?.height,
    // A fresh recipient: whatever it holds came from our sends.
    paid: async (to) => h.node.balance(to),
    reconcileTargets: () => [reconcileTarget(h.config, h.assets)],
  };
}
