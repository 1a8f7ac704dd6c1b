import { createSolanaSweeper } from "@mp/chain-solana";
import type { Database, LeaseKeeper } from "@mp/db";
import { LAMPORTS_PER_SOL } from "../../packages/treasury/test/support/solana-treasury.ts";
import type { SolanaReconcileSetup } from "../treasury/solana-reconcile-setup.ts";
import { solanaWorld } from "./solana-world.ts";
import { type SweepWorld, stablecoinSweepAsset, sweeperDeps, sweepWorldOn } from "./sweep-world.ts";

/**
 * The Solana test node as the sweep fuzz drives it (solanaWorld's node, indexer, lost transactions
 * and reorgs): customers pay USDC and SOL to deposit addresses the real indexer watches and
 * credits; the Solana sweeper moves them into the treasury, the treasury paying every fee and the
 * rent of its own token account, the deposit token account closed into the treasury once emptied,
 * a SOL deposit address left empty or at the rent-exempt minimum. SOL deposits go down to a tenth
 * of the minimum: a first one below it fails on chain (InsufficientFundsForRent), as on the real
 * cluster. Thresholds are the defaults: 10 USDC, 0.01 SOL.
 */
export function solanaSweepWorld(db: Database, setup: SolanaReconcileSetup): SweepWorld {
  const { h } = setup;
  return sweepWorldOn(solanaWorld(db, setup), {
    assets: [
      stablecoinSweepAsset("USDC"),
      { asset: "SOL", min: 89_000n, max: LAMPORTS_PER_SOL / 20n, threshold: LAMPORTS_PER_SOL / 100n, native: true },
    ],
    treasury: h.treasury,
    // Queued by the node's faucet: lands at the next mine step.
    deposit: async (address, asset, amount) =>
      asset === "SOL" ? h.node.transfer(address, amount) : h.node.transferToken(address, asset, amount),
    balance: async (address, asset) => h.node.tokenBalance(address, asset),
    sweeper: (fetch: typeof globalThis.fetch, leases: LeaseKeeper) =>
      createSolanaSweeper({ ...sweeperDeps(db, h.keys, leases, fetch), chain: h.config }),
    async landed(signature) {
      const tx = h.node.transaction(signature);
      return tx !== undefined && !tx.failed;
    },
  });
}
