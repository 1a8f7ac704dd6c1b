import { describe } from "vitest";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { startEvmReconcileChain } from "../treasury/evm-reconcile-chain.ts";
import { evmWorld } from "./evm-world.ts";
import { sendFuzz } from "./money-model.ts";
import { itHoldsEveryInvariant } from "./run-money-fuzz.ts";

/**
 * Issue 27: the EVM send pipeline (ETH on anvil) under node faults, held transactions, reorgs, crashes and
 * deposed leaders (money-model.ts: the steps and the invariants). A failure prints fast-check's seed
 * and path: `pnpm fuzz money --family evm --seed S --path P` replays it.
 */
describe("money fuzz: the EVM send pipeline", () => {
  const { t, h: chain } = useTreasuryHarness(startEvmReconcileChain);
  itHoldsEveryInvariant(
    "pays every send at most once, settles each in one terminal state, reconciles to the wei",
    "evm",
    sendFuzz,
    () => evmWorld(t.db, chain),
  );
});
