import assert from "node:assert/strict";
import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import { createBitcoinSender } from "../../chains/bitcoin/src/send/bitcoin-sender.ts";
import {
  type BitcoinTreasuryHarness,
  freshRecipients,
  nodeRpc,
  paidOnChain,
} from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";
import { bitcoinBroadcast } from "./broadcast-refusals.ts";
import type { MoneyWorld } from "./money-world.ts";

/** Below it requestSend refuses a Bitcoin amount (no node relays such an output). */
const P2WPKH_DUST = 294n;

/**
 * The Bitcoin test node as the money fuzz drives it: without -txindex (Core's default: a mined
 * transaction is found only by its block), the real indexer recording the treasury's coins.
 */
export function bitcoinWorld(db: Database, h: BitcoinTreasuryHarness): MoneyWorld {
  const heightOf = async (txHash: string): Promise<number | undefined> => {
    const block = h.node.blockOf(txHash);
    if (block === undefined) return undefined;
    for (let height = h.node.height; height > 0; height--) if (h.node.blockHash(height) === block) return height;
    return undefined;
  };
  return {
    family: "bitcoin",
    chain: "BITCOIN",
    asset: "BTC",
    db,
    confirmations: 2,
    amounts: { min: P2WPKH_DUST, max: 3_000_000n, unaffordable: 100_000_000_000n },
    refused: [0n, -1n, 1n, P2WPKH_DUST - 1n],
    // A P2WPKH output of 294 sat is standard; the fee then takes the change if it would be dust.
    hostile: [P2WPKH_DUST],
    broadcasts: bitcoinBroadcast,
    sender: (fetch) => createBitcoinSender({ config: h.config, keys: h.keys, db, logger: silentLogger(), fetch }),
    recipient: () => freshRecipients(1)[0] as string,
    fund: () => h.fund([20_000_000n, 20_000_000n]),
    height: async () => h.node.height,
    mine: (count) => h.mine(count),
    hold: (on) => h.node.setMiningPolicy({ hold: on }),
    async reorg(depth, ours, fate, longer) {
      const options = fate === "remine" ? {} : fate === "mempool" ? { toMempool: ours } : { drop: ours };
      h.node.reorg(depth, { ...options, blocks: depth + (longer ? 1 : 0) });
      await h.catchUp();
    },
    txHeight: heightOf,
    async paid(to, txHashes) {
      let paid = 0n;
      for (const tx of txHashes) paid += await paidOnChain(h.node, tx, to);
      return paid;
    },
    reconcileTargets: () => [reconcileTarget(h.config, [{ asset: "BTC", address: null, decimals: 8 }])],
    /** The treasury's free coins (what the sender spends next) are unspent on the active chain. */
    async checkSettled() {
      const { rows } = await db.query<{ txid: string; vout: number }>(
        `SELECT txid, vout FROM treasury_utxos
          WHERE chain = 'BITCOIN' AND reserved_by IS NULL AND spent_by IS NULL AND block_height IS NOT NULL`,
      );
      for (const coin of rows) {
        const { result } = await nodeRpc(h.node, "gettxout", [coin.txid, coin.vout, false]);
        assert.ok(result !== null && result !== undefined, `free treasury coin ${coin.txid}:${coin.vout} is spent`);
      }
    },
  };
}
