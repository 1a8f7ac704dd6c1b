import { createBitcoinSweeper } from "@mp/chain-bitcoin";
import type { Database, LeaseKeeper } from "@mp/db";
import type { BitcoinTreasuryHarness } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { bitcoinWorld } from "./bitcoin-world.ts";
import { type SweepWorld, sweeperDeps, sweepWorldOn } from "./sweep-world.ts";

/**
 * The Bitcoin test node as the sweep fuzz drives it (bitcoinWorld's node, indexer, holds and
 * reorgs): customers pay BTC to deposit addresses the real indexer watches and credits; the Bitcoin
 * sweeper spends them into the treasury, many addresses per transaction, the fee out of the
 * deposits. The threshold is the default 0.01 BTC.
 */
export function bitcoinSweepWorld(db: Database, h: BitcoinTreasuryHarness): SweepWorld {
  const base = bitcoinWorld(db, h);
  return sweepWorldOn(base, {
    assets: [{ asset: "BTC", min: 100_000n, max: 3_000_000n, threshold: 1_000_000n, native: true }],
    treasury: h.treasury,
    // Into the mempool: mined by the next mine step (unless miners hold).
    deposit: async (address, _asset, amount) => h.node.send(address, amount).txid,
    balance() {
      throw new Error("Bitcoin has no tokens: the sweep fuzz asks balances of tokens only");
    },
    sweeper: (fetch: typeof globalThis.fetch, leases: LeaseKeeper) =>
      createBitcoinSweeper({ ...sweeperDeps(db, h.keys, leases, fetch), chains: [h.config] }),
    // A wallet payment that lands is valid: mined on the active chain is landed.
    landed: async (txHash) => (await base.txHeight(txHash)) !== undefined,
  });
}
