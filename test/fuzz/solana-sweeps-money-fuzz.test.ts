import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { solanaSweepWorld } from "./solana-sweep-world.ts";
import { startSolanaFuzz } from "./solana-world.ts";
import { sweepFuzz } from "./sweep-model.ts";

/**
 * Issue 27: the Solana sweeper (USDC and SOL, the treasury paying fees and rent) and the send
 * pipeline on the Solana test node, customers paying deposit addresses the real indexer credits,
 * under node faults, lost transactions, reorgs, crashes and deposed leaders (sweep-model.ts,
 * sweep-invariants.ts). A failure prints fast-check's seed and path: `pnpm fuzz money --family
 * solana-sweeps --seed S --path P` replays it.
 */
describeMoneyFuzz("solana-sweeps", "the Solana sweeper", sweepFuzz, {
  start: startSolanaFuzz,
  world: solanaSweepWorld,
  it: "sweeps every deposit at most once, settles each sweep, reconciles to the lamport",
});
