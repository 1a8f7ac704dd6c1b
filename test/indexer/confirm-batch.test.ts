import { silentLogger } from "@mp/core";
import { checkLedger, postDepositCredits } from "@mp/ledger";
import { createSandboxRateProvider } from "@mp/providers";
import { describe, expect, it } from "vitest";
import { type ConfirmOptions, confirmDeposits } from "../../packages/indexer/src/confirm-deposits.ts";
import { type Destination, insertDueDeposits, insertMerchantDestinations } from "../support/due-deposits.ts";
import { useTestDatabase } from "../support/test-database.ts";

/**
 * The confirm-and-credit step on its own (no chain): a batch of due deposits is credited in one
 * transaction, exactly once even when two callers race for it, and one deposit that cannot be
 * credited does not hold back the batch's others.
 */
describe("confirming a batch of due deposits", () => {
  const testDb = useTestDatabase();
  let height = 1_000;

  const confirmAt = (head: number, extra: Partial<ConfirmOptions> = {}) =>
    confirmDeposits({
      db: testDb.db,
      chain: "BASE",
      head,
      rates: createSandboxRateProvider(),
      logger: silentLogger(),
      failpoint: () => undefined,
      fence: async () => undefined,
      ...extra,
    });

  /** PENDING deposits of the destinations, due at the returned head. */
  async function dueDeposits(destinations: Destination[], count: number): Promise<number> {
    height += 10;
    await insertDueDeposits(testDb.db, destinations, count, height);
    return height + 5;
  }

  async function depositsOf(merchantIds: string[]) {
    const { rows } = await testDb.db.query<{ id: string; merchant_id: string; status: string; entries: string }>(
      `SELECT d.id, d.merchant_id, d.status,
              (SELECT count(*) FROM journal_entries e WHERE e.kind = 'deposit_credit' AND e.reference = d.id::text) AS entries
         FROM deposits d WHERE d.merchant_id = ANY($1::uuid[])`,
      [merchantIds],
    );
    return rows;
  }

  it("credits every due deposit once, two callers racing for the same batch", async () => {
    const destinations = await insertMerchantDestinations(testDb.db, 4, "Race");
    const head = await dueDeposits(destinations, 300);
    const [a, b] = await Promise.all([confirmAt(head), confirmAt(head)]);
    expect(a.confirmed + b.confirmed).toBe(300);
    const rows = await depositsOf(destinations.map((d) => d.merchantId));
    expect(rows).toHaveLength(300);
    expect(rows.filter((r) => r.status === "CONFIRMED" && r.entries === "1")).toHaveLength(300);
    expect((await confirmAt(head)).confirmed).toBe(0);
    const { rows: events } = await testDb.db.query<{ events: string }>(
      `SELECT count(*) AS events FROM events WHERE type = 'deposit.confirmed' AND merchant_id = ANY($1::uuid[])`,
      [destinations.map((d) => d.merchantId)],
    );
    expect(events[0]?.events).toBe("300");
    expect((await checkLedger(testDb.db)).ok).toBe(true);
  });

  it("fails the iteration, crediting nothing, when no deposit of the batch goes through alone either", async () => {
    const destinations = await insertMerchantDestinations(testDb.db, 2, "Crash");
    const head = await dueDeposits(destinations, 20);
    const crash = () => {
      throw new Error("crash after credit");
    };
    await expect(confirmAt(head, { failpoint: crash })).rejects.toThrow("crash after credit");
    const rows = await depositsOf(destinations.map((d) => d.merchantId));
    expect(rows.map((r) => [r.status, r.entries])).toEqual(rows.map(() => ["PENDING", "0"]));
    expect((await confirmAt(head)).confirmed).toBe(20);
  });
  it("credits the batch's others when one deposit cannot be credited, and leaves that one PENDING", async () => {
    const destinations = await insertMerchantDestinations(testDb.db, 3, "Fallback");
    const head = await dueDeposits(destinations, 60);
    const merchantIds = destinations.map((d) => d.merchantId);
    const [bad] = await depositsOf(merchantIds);
    if (!bad) throw new Error("no deposit");
    // A credit already posted for the deposit with other figures (a hand-made entry): crediting it
    // again is a conflict, which fails any transaction it is in.
    await testDb.db.tx((client) =>
      postDepositCredits(client, [
        { depositId: bad.id, merchantId: bad.merchant_id, amountUsdMicros: 1n, feeUsdMicros: 0n },
      ]),
    );
    const result = await confirmAt(head);
    expect(result.confirmed).toBe(59);
    const rows = await depositsOf(merchantIds);
    expect(rows.filter((r) => r.status === "CONFIRMED")).toHaveLength(59);
    expect(rows.find((r) => r.id === bad.id)).toMatchObject({ status: "PENDING", entries: "1" });
    // Due alone now, and still failing: the iteration fails (and is retried), nothing changes.
    await expect(confirmAt(head)).rejects.toThrow("already posted with different figures");
    expect((await depositsOf(merchantIds)).filter((r) => r.entries !== "1")).toEqual([]);
    expect(rows.find((r) => r.id === bad.id)?.status).toBe("PENDING");
  });
});
