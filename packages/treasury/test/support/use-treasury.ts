import type { Database } from "@mp/db";
import type { TestDatabase } from "@mp/db/testing";
import { useTestDatabase } from "../../../../test/support/test-database.ts";
import { useStarted } from "../../../../test/support/use-started.ts";

/**
 * The opening of a family's treasury tests: a fresh test database (`t`) and the family's harness
 * on it (`h`: startEvmTreasury, startSolanaTreasury, startBitcoinTreasury), started in the calling
 * file's beforeAll; in its afterAll the harness stops, then the database is dropped. Both stand for
 * what they will be from the start (see late.ts): use them inside hooks and tests.
 */
export function useTreasuryHarness<H extends { stop(): Promise<void> }>(
  start: (db: Database) => Promise<H>,
): { t: TestDatabase; h: H } {
  const t = useTestDatabase();
  // vitest runs afterAll hooks in reverse: the harness (its indexer's lease) stops before the drop.
  const h = useStarted(
    "the treasury harness",
    () => start(t.db),
    (started) => started.stop(),
  );
  return { t, h };
}
