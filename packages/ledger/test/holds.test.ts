import { randomUUID } from "node:crypto";
import { ConflictError, InsufficientFundsError, NotFoundError, ValidationError } from "@mp/core";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLedger, getMerchantBalance, placeHold, releaseHold, settleHold } from "../src/index.ts";
import { createMerchant, creditDeposit, reverseDeposit, USD } from "./ledger-fixtures.ts";

let t: TestDatabase;
beforeAll(async () => {
  // A pool wide enough that the concurrent holds really run at once on a server.
  t = await createTestDatabase({ poolSize: 25 });
});
afterAll(async () => {
  await t?.drop();
});

const hold = (merchantId: string, amount: bigint, holdId: string = randomUUID()) =>
  t.db.tx((c) => placeHold(c, { holdId, merchantId, amountUsdMicros: amount }));

async function payoutClearing(): Promise<bigint> {
  const r = await t.db.query<{ balance: string }>(
    `SELECT b.balance::text AS balance FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id
      WHERE a.kind = 'payout_clearing'`,
  );
  return BigInt(r.rows[0]?.balance ?? "NaN");
}

describe("holds", () => {
  it("moves available to reserved, once per hold id", async () => {
    const m = await createMerchant(t.db);
    await creditDeposit(t.db, m, { gross: 10n * USD, fee: 0n });
    const holdId = `payout-${randomUUID()}`;
    const first = await hold(m.merchantId, 4n * USD, holdId);
    const again = await hold(m.merchantId, 4n * USD, holdId);
    expect(again.entryId).toBe(first.entryId);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 6n * USD, reserved: 4n * USD, held: 0n });
    await expect(hold(m.merchantId, 5n * USD, holdId)).rejects.toBeInstanceOf(ConflictError);
    await expect(hold(m.merchantId, 0n)).rejects.toBeInstanceOf(ValidationError);
  });

  it("refuses a hold above available, writing nothing and leaving the transaction usable", async () => {
    const m = await createMerchant(t.db);
    await creditDeposit(t.db, m, { gross: 10n * USD, fee: 0n });
    const holdId = randomUUID();
    const committed = await t.db.tx(async (c) => {
      await expect(
        placeHold(c, { holdId, merchantId: m.merchantId, amountUsdMicros: 10n * USD + 1n }),
      ).rejects.toBeInstanceOf(InsufficientFundsError);
      return (await c.query("SELECT 1 AS one")).rows;
    });
    expect(committed).toEqual([{ one: 1 }]);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 10n * USD, reserved: 0n, held: 0n });
    expect((await t.db.query("SELECT 1 FROM journal_entries WHERE reference = $1", [holdId])).rowCount).toBe(0);
    expect((await t.db.query("SELECT 1 FROM ledger_holds WHERE id = $1", [holdId])).rowCount).toBe(0);
    // Exactly the available amount is fine.
    await hold(m.merchantId, 10n * USD);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 10n * USD, held: 0n });
    // A merchant that never received anything has nothing to hold.
    const empty = await createMerchant(t.db);
    await expect(hold(empty.merchantId, 1n)).rejects.toBeInstanceOf(InsufficientFundsError);
  });

  it("settles to payout_clearing or releases to available, exactly once", async () => {
    const m = await createMerchant(t.db);
    await creditDeposit(t.db, m, { gross: 10n * USD, fee: 0n });
    const paid = randomUUID();
    const cancelled = randomUUID();
    await hold(m.merchantId, 3n * USD, paid);
    await hold(m.merchantId, 2n * USD, cancelled);
    const clearingBefore = await payoutClearing();

    const settled = await t.db.tx((c) => settleHold(c, { holdId: paid, merchantId: m.merchantId }));
    expect((await t.db.tx((c) => settleHold(c, { holdId: paid, merchantId: m.merchantId }))).entryId).toBe(
      settled.entryId,
    );
    expect((await payoutClearing()) - clearingBefore).toBe(3n * USD);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 5n * USD, reserved: 2n * USD, held: 0n });

    const released = await t.db.tx((c) => releaseHold(c, { holdId: cancelled, merchantId: m.merchantId }));
    expect((await t.db.tx((c) => releaseHold(c, { holdId: cancelled, merchantId: m.merchantId }))).entryId).toBe(
      released.entryId,
    );
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 7n * USD, reserved: 0n, held: 0n });

    await expect(t.db.tx((c) => releaseHold(c, { holdId: paid, merchantId: m.merchantId }))).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(t.db.tx((c) => settleHold(c, { holdId: cancelled, merchantId: m.merchantId }))).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(
      t.db.tx((c) => settleHold(c, { holdId: randomUUID(), merchantId: m.merchantId })),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 7n * USD, reserved: 0n, held: 0n });
    expect((await payoutClearing()) - clearingBefore).toBe(3n * USD);
  });

  it("resolves a hold only for its own merchant: another merchant's settle or release is NotFound and moves nothing", async () => {
    const m = await createMerchant(t.db);
    const intruder = await createMerchant(t.db);
    await creditDeposit(t.db, m, { gross: 10n * USD, fee: 0n });
    await creditDeposit(t.db, intruder, { gross: 10n * USD, fee: 0n });
    const holdId = randomUUID();
    await hold(m.merchantId, 4n * USD, holdId);
    const clearingBefore = await payoutClearing();
    for (const resolve of [settleHold, releaseHold]) {
      await expect(t.db.tx((c) => resolve(c, { holdId, merchantId: intruder.merchantId }))).rejects.toBeInstanceOf(
        NotFoundError,
      );
    }
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 6n * USD, reserved: 4n * USD, held: 0n });
    expect(await getMerchantBalance(t.db, intruder.merchantId)).toEqual({
      available: 10n * USD,
      reserved: 0n,
      held: 0n,
    });
    expect(await payoutClearing()).toBe(clearingBefore);
    const status = await t.db.query("SELECT status FROM ledger_holds WHERE id = $1", [holdId]);
    expect(status.rows).toEqual([{ status: "HELD" }]);
    // The owner still can.
    await t.db.tx((c) => settleHold(c, { holdId, merchantId: m.merchantId }));
    expect((await payoutClearing()) - clearingBefore).toBe(4n * USD);
  });

  it("refuses to settle a hold while a reversal left available below zero; releasing fills the gap", async () => {
    const m = await createMerchant(t.db);
    const { depositId } = await creditDeposit(t.db, m, { gross: 10n * USD, fee: 0n });
    const holdId = randomUUID();
    await hold(m.merchantId, 10n * USD, holdId);
    // The deposit the reservation stood on leaves the chain.
    await reverseDeposit(t.db, m, depositId);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
      available: -10n * USD,
      reserved: 10n * USD,
      held: 0n,
    });
    const clearingBefore = await payoutClearing();
    const settling = await t.db.tx(async (c) => {
      await expect(settleHold(c, { holdId, merchantId: m.merchantId })).rejects.toBeInstanceOf(InsufficientFundsError);
      return (await c.query("SELECT 1 AS one")).rows;
    });
    expect(settling).toEqual([{ one: 1 }]);
    expect(await payoutClearing()).toBe(clearingBefore);
    expect((await t.db.query("SELECT status FROM ledger_holds WHERE id = $1", [holdId])).rows).toEqual([
      { status: "HELD" },
    ]);
    // New money brings available back to zero: the hold can settle again.
    const refill = await creditDeposit(t.db, m, { gross: 10n * USD, fee: 0n });
    expect(refill.entryId).toBeTruthy();
    await t.db.tx((c) => settleHold(c, { holdId, merchantId: m.merchantId }));
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
    expect((await payoutClearing()) - clearingBefore).toBe(10n * USD);

    // Or the hold is released instead: the reserved money goes back and available is whole again.
    const other = await createMerchant(t.db);
    const credited = await creditDeposit(t.db, other, { gross: 5n * USD, fee: 0n });
    const otherHold = randomUUID();
    await hold(other.merchantId, 5n * USD, otherHold);
    await reverseDeposit(t.db, other, credited.depositId);
    await t.db.tx((c) => releaseHold(c, { holdId: otherHold, merchantId: other.merchantId }));
    expect(await getMerchantBalance(t.db, other.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
    expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });
  });

  it("never overdraws under concurrent holds: 100 available, 50 holds of 3 -> 33 succeed", async () => {
    const m = await createMerchant(t.db);
    await creditDeposit(t.db, m, { gross: 100n * USD, fee: 0n });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => hold(m.merchantId, 3n * USD)));
    const refused = results.filter((r) => r.status === "rejected");
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(33);
    expect(refused).toHaveLength(17);
    for (const r of refused) expect(r.status === "rejected" && r.reason).toBeInstanceOf(InsufficientFundsError);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
      available: 1n * USD,
      reserved: 99n * USD,
      held: 0n,
    });
    expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });
  });

  it("lets one of a concurrent settle and release of the same hold win", async () => {
    const m = await createMerchant(t.db);
    await creditDeposit(t.db, m, { gross: 10n * USD, fee: 0n });
    for (let i = 0; i < 5; i++) {
      const holdId = randomUUID();
      await hold(m.merchantId, 1n * USD, holdId);
      const [settle, release] = await Promise.allSettled([
        t.db.tx((c) => settleHold(c, { holdId, merchantId: m.merchantId })),
        t.db.tx((c) => releaseHold(c, { holdId, merchantId: m.merchantId })),
      ]);
      expect([settle.status, release.status].sort()).toEqual(["fulfilled", "rejected"]);
      const loser = settle.status === "rejected" ? settle : release;
      expect(loser.status === "rejected" && loser.reason).toBeInstanceOf(ConflictError);
      const entries = await t.db.query("SELECT kind FROM journal_entries WHERE reference = $1 AND kind <> 'hold'", [
        holdId,
      ]);
      expect(entries.rowCount).toBe(1);
    }
    expect((await getMerchantBalance(t.db, m.merchantId)).reserved).toBe(0n);
    expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });
  });

  it("answers a concurrent duplicate hold with the first entry", async () => {
    const m = await createMerchant(t.db);
    await creditDeposit(t.db, m, { gross: 5n * USD, fee: 0n });
    const holdId = randomUUID();
    const results = await Promise.all(Array.from({ length: 6 }, () => hold(m.merchantId, 5n * USD, holdId)));
    expect(new Set(results.map((r) => r.entryId)).size).toBe(1);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 5n * USD, held: 0n });
  });
});
