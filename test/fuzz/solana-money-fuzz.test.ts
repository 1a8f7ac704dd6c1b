import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { sendFuzz } from "./money-model.ts";
import { solanaWorld, startSolanaFuzz } from "./solana-world.ts";

/**
 * Issue 27: the Solana send pipeline (SOL) under node faults, lost transactions, reorgs, crashes and
 * deposed leaders (money-model.ts: the steps and the invariants). A failure prints fast-check's seed
 * and path: `pnpm fuzz money --family solana --seed S --path P` replays it.
 */
describeMoneyFuzz("solana", "the Solana send pipeline", sendFuzz, {
  start: startSolanaFuzz,
  world: solanaWorld,
  it: "pays every send at most once, settles each in one terminal state, reconciles to the lamport",
});
