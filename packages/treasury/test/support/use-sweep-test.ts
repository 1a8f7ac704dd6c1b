import type { ChainConfig } from "@mp/core";
import { type ChainId, silentLogger } from "@mp/core";
import type { TreasuryKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import type { TestDatabase } from "@mp/db/testing";
import { afterEach } from "vitest";
import { TEST_LEASE_SECONDS } from "../../../../test/support/test-leases.ts";
import { useStarted } from "../../../../test/support/use-started.ts";
import type { ChainSender } from "../../src/chain-sender.ts";
import type { SendPipeline } from "../../src/send-pipeline.ts";
import { type DepositMerchant, testDepositKeys } from "./evm-deposits.ts";
import { type SweepRow, untilSweepsSettled } from "./sweep-rows.ts";
import { testSendPipeline } from "./test-pipelines.ts";
import { useTreasuryHarness } from "./use-treasury.ts";

/**
 * The opening of a family's sweep tests: the test database and the family's harness (see
 * useTreasuryHarness), one send pipeline on the harness's sender (two confirmations, a 2 s lease),
 * and `sweepers`: the sweepers a test started, stopped after each test. On the way out the pipeline
 * stops before the harness and the database (vitest runs afterAll hooks in reverse).
 * `settle(s, merchant, expected)`: a pass of the sweeper `s`, one of the pipeline, a block (`sweeps.mine`),
 * until the merchant's sweeps (`sweeps.read`) are `expected`, each confirmed or failed (60 s at most).
 */
export function useSweepTest<
  H extends { stop(): Promise<void>; sender(): ChainSender },
  S extends { tick(chain: ChainId): Promise<void>; stop(): Promise<void> },
  R extends { state: string } = SweepRow,
>(
  chain: ChainId,
  start: (db: Database) => Promise<H>,
  sweeps: { mine(h: H): unknown; read(db: Database, merchant: DepositMerchant): Promise<R[]> },
): {
  t: TestDatabase;
  h: H;
  pipeline: SendPipeline;
  sweepers: S[];
  settle(s: S, merchant: DepositMerchant, expected: number): Promise<R[]>;
} {
  const { t, h } = useTreasuryHarness(start);
  const pipeline = useStarted(
    "the send pipeline",
    async () => testSendPipeline(t.db, chain, h.sender()),
    (started) => started.stop(),
  );
  const sweepers: S[] = [];
  afterEach(async () => {
    await Promise.all(sweepers.splice(0).map((s) => s.stop()));
  });
  const settle = (s: S, merchant: DepositMerchant, expected: number) =>
    untilSweepsSettled(
      [s, pipeline],
      chain,
      () => sweeps.mine(h),
      () => sweeps.read(t.db, merchant),
      expected,
      60_000,
    );
  return { t, h, pipeline, sweepers, settle };
}

/** A family sweeper's options in the tests: the harness's chain and treasury keys, the test deposit keys, a 2 s lease. */
export function testSweeperOptions(db: Database, h: { config: ChainConfig; keys: TreasuryKeys }) {
  return {
    db,
    chains: [h.config],
    depositKeys: testDepositKeys(),
    treasuryKeys: h.keys,
    logger: silentLogger(),
    leaseSeconds: TEST_LEASE_SECONDS,
  };
}
