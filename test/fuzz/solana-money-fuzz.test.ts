import { describe } from "vitest";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { sendFuzz } from "./money-model.ts";
import { itHoldsEveryInvariant } from "./run-money-fuzz.ts";
import { solanaWorld, startSolanaFuzz } from "./solana-world.ts";

/**
 * Issue 27: the Solana send pipeline (SOL) under node faults, lost transactions, reorgs, crashes and
 * deposed leaders (money-model.ts: the steps and the invariants). A failure prints fast-check's seed
 * and path: `pnpm fuzz money --family solana --seed S --path P` replays it.
 */
describe("money fuzz: the Solana send pipeline", () => {
  const { t, h: setup } = useTreasuryHarness(startSolanaFuzz);
  itHoldsEveryInvariant(
    "pays every send at most once, settles each in one terminal state, reconciles to the lamport",
    "solana",
    sendFuzz,
    () => solanaWorld(t.db, setup),
  );
});
