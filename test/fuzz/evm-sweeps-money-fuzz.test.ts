import { startEvmReconcileChain } from "../treasury/evm-reconcile-chain.ts";
import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { evmSweepWorld } from "./evm-sweep-world.ts";
import { sweepFuzz } from "./sweep-model.ts";

/**
 * Issue 27: the EVM sweeper (USDC after a gas top-up, ETH net of its gas) and the send pipeline on
 * anvil, customers paying deposit addresses the real indexer credits, under node faults, held
 * transactions, reorgs, crashes and deposed leaders (sweep-model.ts: the steps; sweep-invariants.ts:
 * the invariants). A failure prints fast-check's seed and path: `pnpm fuzz money --family evm-sweeps
 * --seed S --path P` replays it.
 */
describeMoneyFuzz("evm-sweeps", "the EVM sweeper", sweepFuzz, {
  start: startEvmReconcileChain,
  world: evmSweepWorld,
  it: "sweeps every deposit at most once, tops up once per need, settles each sweep, reconciles to the unit",
});
