import { startBitcoinTreasury } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { bitcoinSweepWorld } from "./bitcoin-sweep-world.ts";
import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { sweepFuzz } from "./sweep-model.ts";

/**
 * Issue 27: the Bitcoin sweeper (many deposit addresses per transaction, the fee out of the
 * deposits) and the send pipeline on a node without -txindex, customers paying deposit addresses
 * the real indexer credits, under node faults, held transactions, reorgs, crashes and deposed
 * leaders (sweep-model.ts, sweep-invariants.ts). A failure prints fast-check's seed and path:
 * `pnpm fuzz money --family bitcoin-sweeps --seed S --path P` replays it.
 */
describeMoneyFuzz("bitcoin-sweeps", "the Bitcoin sweeper", sweepFuzz, {
  start: (db) => startBitcoinTreasury(db, { txindex: false }),
  // Matured coinbases for the customers' payments, several per case.
  prepare: (h) => h.mine(20),
  world: bitcoinSweepWorld,
  it: "sweeps every deposit at most once, settles each sweep, reconciles to the satoshi",
});
