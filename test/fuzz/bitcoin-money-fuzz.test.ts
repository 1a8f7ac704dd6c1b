import { beforeAll, describe } from "vitest";
import { startBitcoinTreasury } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { bitcoinWorld } from "./bitcoin-world.ts";
import { sendFuzz } from "./money-model.ts";
import { itHoldsEveryInvariant } from "./run-money-fuzz.ts";

/**
 * Issue 27: the Bitcoin send pipeline under node faults, reorgs, crashes and deposed leaders, on a
 * node without -txindex (money-model.ts: the steps and the invariants). A failure prints
 * fast-check's seed and path: `pnpm fuzz money --family bitcoin --seed S --path P` replays it.
 */
describe("money fuzz: the Bitcoin send pipeline", () => {
  const { t, h } = useTreasuryHarness((db) => startBitcoinTreasury(db, { txindex: false }));
  beforeAll(async () => {
    await h.fund([20_000_000n, 20_000_000n]);
  }, 60_000);

  itHoldsEveryInvariant(
    "pays every send at most once, settles each in one terminal state, reconciles to the satoshi",
    "bitcoin",
    sendFuzz,
    () => bitcoinWorld(t.db, h),
  );
});
