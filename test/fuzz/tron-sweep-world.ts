import { createTronSweeper } from "@mp/chain-tron";
import type { Database, LeaseKeeper } from "@mp/db";
import type { TronTreasuryHarness } from "../../packages/treasury/test/support/tron-treasury.ts";
import { type SweepWorld, stablecoinSweepAsset, sweeperDeps, sweepWorldOn } from "./sweep-world.ts";
import { tronWorld } from "./tron-world.ts";

const TRX = 1_000_000n;
/**
 * TRX is swept from 1 TRX: below the bandwidth reserve (0.4 TRX) a TRX sweep would move nothing
 * (the default 0.01 is below it; such a deposit waits for more, not a fault). USDT at the default 10.
 */
const SWEEP_CONFIG = { thresholds: { TRX: "1" }, defaults: { token: "10", native: "0.01" }, intervalMs: 60_000 };

/**
 * The Tron test node as the sweep fuzz drives it (tronWorld's node, indexer, holds and reorgs):
 * customers pay USDT and TRX to deposit addresses the real indexer watches and credits; the Tron
 * sweeper tops the USDT addresses up with TRX for the transfer's energy and bandwidth (a treasury
 * send through the pipeline) and sweeps them into the treasury; TRX is swept net of its bandwidth.
 */
export function tronSweepWorld(db: Database, h: TronTreasuryHarness): SweepWorld {
  const usdt = h.node.tokens[0]?.asset ?? "USDT";
  return sweepWorldOn(tronWorld(db, h), {
    assets: [stablecoinSweepAsset(usdt), { asset: "TRX", min: TRX / 10n, max: 5n * TRX, threshold: TRX, native: true }],
    treasury: h.treasury,
    // Queued: lands at the next mine step (unless miners hold; held past its expiration, it is dropped).
    deposit: async (address, asset, amount) =>
      asset === "TRX" ? h.node.transfer(address, amount) : h.node.transferToken(address, amount),
    balance: async (address) => h.node.tokenBalance(address),
    sweeper: (fetch: typeof globalThis.fetch, leases: LeaseKeeper) =>
      createTronSweeper({ ...sweeperDeps(db, h.keys, leases, fetch), chains: [h.config], config: SWEEP_CONFIG }),
    async landed(txHash) {
      const tx = h.node.transaction(txHash);
      return tx !== undefined && !tx.failed;
    },
  });
}
