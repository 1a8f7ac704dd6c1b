import { afterAll, beforeAll, describe } from "vitest";
import { startTransfersApi, type TransfersApi } from "../api/transfers-support.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { type DrainWorld, drainFuzz } from "./drain-model.ts";
import { itHoldsEveryInvariant } from "./run-money-fuzz.ts";

/**
 * Issue 30 under the fault search: deposits to liquidation addresses drained (4 at once, two
 * drainers at times) to a bank that pays, one that refuses, crypto addresses whose send the signer
 * fails at times, return_address set or not, amounts below the minimum and above the travel rule's
 * threshold, drainer and executor processes dying at any statement (drain-model.ts: the steps;
 * drain-invariants.ts: the invariants). A failure prints fast-check's seed and path:
 * `pnpm fuzz money --family liquidation --seed S --path P` replays it.
 */
describe("money fuzz: liquidation drains", () => {
  let t: TransfersApi;
  let world: DrainWorld;
  beforeAll(async () => {
    t = await startTransfersApi();
    const merchant: TestMerchant = await t.api.merchant();
    world = { t, merchant, customerId: (await t.bankCustomer(merchant)).customerId };
  }, 120_000);
  afterAll(() => t?.stop());

  itHoldsEveryInvariant(
    "drains every deposit at most once, pays out at most once, returns at most once; no money lost; ledger clean",
    "liquidation",
    drainFuzz,
    () => world,
  );
});
