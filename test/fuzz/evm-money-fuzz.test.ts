import { startEvmReconcileChain } from "../treasury/evm-reconcile-chain.ts";
import { describeMoneyFuzz } from "./describe-money-fuzz.ts";
import { evmWorld } from "./evm-world.ts";
import { sendFuzz } from "./money-model.ts";

/**
 * Issue 27: the EVM send pipeline (ETH on anvil) under node faults, held transactions, reorgs, crashes and
 * deposed leaders (money-model.ts: the steps and the invariants). A failure prints fast-check's seed
 * and path: `pnpm fuzz money --family evm --seed S --path P` replays it.
 */
describeMoneyFuzz("evm", "the EVM send pipeline", sendFuzz, {
  start: startEvmReconcileChain,
  world: evmWorld,
  it: "pays every send at most once, settles each in one terminal state, reconciles to the wei",
});
