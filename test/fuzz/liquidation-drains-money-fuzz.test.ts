import { describe } from "vitest";
import { type DrainWorld, drainFuzz } from "./drain-model.ts";
import { itHoldsEveryInvariant } from "./run-money-fuzz.ts";
import { useTransfersFuzzWorld } from "./transfers-fuzz-world.ts";

/**
 * Issue 30 under the fault search: deposits to liquidation addresses drained (4 at once, two
 * drainers at times) to a bank that pays, one that refuses, crypto addresses whose send the signer
 * fails at times, return_address set or not, amounts below the minimum and above the travel rule's
 * threshold, drainer and executor processes dying at any statement (drain-model.ts: the steps;
 * drain-invariants.ts: the invariants). A failure prints fast-check's seed and path:
 * `pnpm fuzz money --family liquidation --seed S --path P` replays it.
 */
describe("money fuzz: liquidation drains", () => {
  const world: DrainWorld = useTransfersFuzzWorld(async ({ t, merchant }) => ({
    customerId: (await t.bankCustomer(merchant)).customerId,
  }));

  itHoldsEveryInvariant(
    "drains every deposit at most once, pays out at most once, returns at most once; no money lost; ledger clean",
    "liquidation",
    drainFuzz,
    () => world,
  );
});
