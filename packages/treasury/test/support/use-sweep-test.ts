import { type ChainId, silentLogger } from "@mp/core";
import type { Database } from "@mp/db";
import type { TestDatabase } from "@mp/db/testing";
import { afterEach } from "vitest";
import { useStarted } from "../../../../test/support/use-started.ts";
import type { ChainSender } from "../../src/chain-sender.ts";
import { createSendPipeline, type SendPipeline } from "../../src/send-pipeline.ts";
import { useTreasuryHarness } from "./use-treasury.ts";

/**
 * The opening of a family's sweep tests: the test database and the family's harness (see
 * useTreasuryHarness), one send pipeline on the harness's sender (two confirmations, a 2 s lease),
 * and `sweepers`: the sweepers a test started, stopped after each test. On the way out the pipeline
 * stops before the harness and the database (vitest runs afterAll hooks in reverse).
 */
export function useSweepTest<
  H extends { stop(): Promise<void>; sender(): ChainSender },
  S extends { stop(): Promise<void> },
>(
  chain: ChainId,
  start: (db: Database) => Promise<H>,
): { t: TestDatabase; h: H; pipeline: SendPipeline; sweepers: S[] } {
  const { t, h } = useTreasuryHarness(start);
  const pipeline = useStarted(
    "the send pipeline",
    async () =>
      createSendPipeline({
        db: t.db,
        senders: [h.sender()],
        logger: silentLogger(),
        confirmations: { [chain]: 2 },
        leaseSeconds: 2,
      }),
    (started) => started.stop(),
  );
  const sweepers: S[] = [];
  afterEach(async () => {
    await Promise.all(sweepers.splice(0).map((s) => s.stop()));
  });
  return { t, h, pipeline, sweepers };
}
