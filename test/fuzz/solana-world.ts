import { silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import type { Indexer } from "@mp/indexer";
import type { ReconcileTarget } from "@mp/treasury";
import { Keypair } from "@solana/web3.js";
import { createSolanaSender } from "../../chains/solana/src/send/solana-sender.ts";
import { LAMPORTS_PER_SOL, type SolanaTreasuryHarness } from "../../packages/treasury/test/support/solana-treasury.ts";
import { catchUp } from "../indexer/indexer-fixtures.ts";
import { type SolanaReconcileSetup, startSolanaReconcile } from "../treasury/solana-reconcile-setup.ts";
import { solanaBroadcast } from "./broadcast-refusals.ts";
import type { MoneyWorld } from "./money-world.ts";

/** Below it a transfer to a new wallet fails on chain (InsufficientFundsForRent). */
const RENT_EXEMPT_MINIMUM = 890_880n;

/**
 * The Solana test node as the money fuzz drives it: SOL sends, the real indexer recording the
 * treasury's receipts. `hold` makes the node lose what it is sent (a validator dropping
 * transactions under load: they land only if sent again before their blockhash expires); a reorg
 * lands our transactions again, drops them, or (`mempool`) delays them to the next block.
 */
export function solanaWorld(
  db: Database,
  setup: { h: SolanaTreasuryHarness; indexer: Indexer; targets(): ReconcileTarget[] },
): MoneyWorld {
  const { h, indexer } = setup;
  return {
    family: "solana",
    chain: "SOLANA",
    asset: "SOL",
    db,
    confirmations: 2,
    amounts: { min: RENT_EXEMPT_MINIMUM, max: LAMPORTS_PER_SOL / 4n, unaffordable: 10n ** 17n },
    refused: [0n, -1n],
    hostile: [1n, RENT_EXEMPT_MINIMUM - 1n],
    broadcasts: solanaBroadcast,
    sender: (fetch) => createSolanaSender({ config: h.config, keys: h.keys, db, logger: silentLogger(), fetch }),
    recipient: () => Keypair.generate().publicKey.toBase58(),
    async fund() {
      h.node.transfer(h.treasury, 5n * LAMPORTS_PER_SOL);
      h.node.mine(1);
      await catchUp(indexer);
    },
    height: async () => h.node.head(),
    async mine(count) {
      h.node.mine(count);
      await catchUp(indexer);
    },
    hold: (on) => h.node.dropIncoming(on),
    async reorg(depth, ours, fate) {
      h.node.reorg(depth, fate === "drop" ? { drop: ours } : fate === "mempool" ? { delay: ours } : {});
      await catchUp(indexer);
    },
    txHeight: async (signature) => h.node.transaction(signature)?.slot,
    // A fresh recipient: whatever it holds came from our sends.
    paid: async (to) => h.node.balance(to),
    reconcileTargets: () => setup.targets(),
  };
}

/** The Solana test node and its indexer as a fuzz file's harness starts them; stopping stops both. */
export async function startSolanaFuzz(db: Database): Promise<SolanaReconcileSetup & { stop(): Promise<void> }> {
  const started = await startSolanaReconcile(db);
  return {
    ...started,
    async stop() {
      await started.indexer.stop();
      await started.h.stop();
    },
  };
}
