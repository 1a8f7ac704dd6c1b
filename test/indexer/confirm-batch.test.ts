import { feeMicros, silentLogger, toUsdMicros } from "@mp/core";
import { checkLedger, postDepositCredits } from "@mp/ledger";
import { createSandboxRateProvider } from "@mp/providers";
import { describe, expect, it } from "vitest";
import { type ConfirmOptions, confirmDeposits } from "../../packages/indexer/src/confirm-deposits.ts";
import { type Destination, insertDueDeposits, insertMerchantDestinations } from "../support/due-deposits.ts";
import { useTestDatabase } from "../support/test-database.ts";

/**
 * The confirm-and-credit step on its own (no chain): a batch of due deposits is credited in at most
 * two concurrent transactions, exactly once even when two callers race for it, one deposit that
 * cannot be credited does not hold back the batch's others, and one credited before keeps its entry.
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

  it("keeps a deposit's first credit entry when it was credited before with the same figures", async () => {
    const destinations = await insertMerchantDestinations(testDb.db, 2, "Credited before");
    const head = await dueDeposits(destinations, 250);
    const { rows: deposits } = await testDb.db.query<{
      id: string;
      merchant_id: string;
      amount_raw: string;
      decimals: number;
    }>(
      "SELECT id, merchant_id, amount_raw::text, decimals FROM deposits WHERE merchant_id = ANY($1::uuid[]) ORDER BY id LIMIT 1",
      [destinations.map((d) => d.merchantId)],
    );
    const before = deposits[0];
    if (!before) throw new Error("no deposit");
    // The figures the confirmation computes (insertDueDeposits: 1% + 0.01 USD): the same credit, posted first.
    const amount = toUsdMicros(
      BigInt(before.amount_raw),
      before.decimals,
      (await createSandboxRateProvider().rateFor("USDC")).rate,
    );
    const [first] = await testDb.db.tx((client) =>
      postDepositCredits(client, [
        {
          depositId: before.id,
          merchantId: before.merchant_id,
          amountUsdMicros: amount,
          feeUsdMicros: feeMicros(amount, 100, 10_000n),
        },
      ]),
    );
    expect((await confirmAt(head)).confirmed).toBe(250);
    const { rows } = await testDb.db.query<{ status: string; credit_entry_id: string }>(
      "SELECT status, credit_entry_id FROM deposits WHERE id = $1",
      [before.id],
    );
    expect(rows[0]).toEqual({ status: "CONFIRMED", credit_entry_id: first?.entryId });
    const all = await depositsOf(destinations.map((d) => d.merchantId));
    expect(all.filter((r) => r.status === "CONFIRMED" && r.entries === "1")).toHaveLength(250);
    // The ledger's findings about this test's deposits (the test before leaves a hand-made credit behind).
    const { problems } = await checkLedger(testDb.db);
    expect(problems.filter((p) => all.some((r) => p.includes(r.id)) || p.includes(first?.entryId ?? "?"))).toEqual([]);
  });
});
