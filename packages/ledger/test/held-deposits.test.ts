import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError, ValidationError } from "@mp/core";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkLedger,
  getMerchantBalance,
  listHeldDeposits,
  releaseHeldDeposit,
  returnHeldDeposit,
} from "../src/index.ts";
import { createMerchant, creditDeposit, reverseDeposit, systemBalance, USD } from "./ledger-fixtures.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

async function holdState(depositId: string) {
  const r = await t.db.query<{ hold_status: string | null; return_reason: string | null; resolved: boolean }>(
    "SELECT hold_status, return_reason, hold_resolved_at IS NOT NULL AS resolved FROM deposits WHERE id = $1",
    [depositId],
  );
  return r.rows[0];
}

async function expectLedgerOk(): Promise<void> {
  expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });
}

describe("held deposits", () => {
  it("credits a held deposit to merchant_held, out of available, and lists it", async () => {
    const m = await createMerchant(t.db);
    await creditDeposit(t.db, m, { gross: 3n * USD, fee: 0n });
    const { depositId } = await creditDeposit(t.db, m, { gross: 10n * USD, fee: 100_000n }, { held: true });
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
      available: 3n * USD,
      reserved: 0n,
      held: 9_900_000n,
    });
    const listed = await listHeldDeposits(t.db, { merchantId: m.merchantId });
    expect(listed.map((d) => [d.depositId, d.heldReason, d.netAmountUsdMicros])).toEqual([
      [depositId, "customer_rejected", 9_900_000n],
    ]);
    expect((await listHeldDeposits(t.db)).map((d) => d.depositId)).toContain(depositId);
    await expectLedgerOk();
  });

  it("releases once: merchant_held -> merchant_available; a second release or a return is refused", async () => {
    const m = await createMerchant(t.db);
    const { depositId } = await creditDeposit(t.db, m, { gross: 10n * USD, fee: 100_000n }, { held: true });
    const released = await t.db.tx((c) => releaseHeldDeposit(c, { depositId }));
    expect(released.entryId).toBeTruthy();
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 9_900_000n, reserved: 0n, held: 0n });
    expect(await holdState(depositId)).toEqual({ hold_status: "RELEASED", return_reason: null, resolved: true });
    await expect(t.db.tx((c) => releaseHeldDeposit(c, { depositId }))).rejects.toBeInstanceOf(ConflictError);
    await expect(t.db.tx((c) => returnHeldDeposit(c, { depositId, reason: "late" }))).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await listHeldDeposits(t.db, { merchantId: m.merchantId })).toEqual([]);
    await expectLedgerOk();
    // A reorg after the release takes the money from available, where it now is.
    await reverseDeposit(t.db, m, depositId);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
    await expectLedgerOk();
  });

  it("returns once: the payer is owed the gross in returns_payable, the fee is given back", async () => {
    const m = await createMerchant(t.db);
    const owedBefore = await systemBalance(t.db, "returns_payable");
    const feesBefore = await systemBalance(t.db, "fee_revenue");
    const { depositId } = await creditDeposit(t.db, m, { gross: 10n * USD, fee: 100_000n }, { held: true });
    await t.db.tx((c) => returnHeldDeposit(c, { depositId, reason: "customer rejected by compliance" }));
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
    expect((await systemBalance(t.db, "returns_payable")) - owedBefore).toBe(10n * USD);
    expect(await systemBalance(t.db, "fee_revenue")).toBe(feesBefore);
    expect(await holdState(depositId)).toEqual({
      hold_status: "RETURNED",
      return_reason: "customer rejected by compliance",
      resolved: true,
    });
    await expect(t.db.tx((c) => releaseHeldDeposit(c, { depositId }))).rejects.toBeInstanceOf(ConflictError);
    await expectLedgerOk();
    // A reorg after the return: the money left the chain, nobody is owed it any more.
    await reverseDeposit(t.db, m, depositId);
    expect(await systemBalance(t.db, "returns_payable")).toBe(owedBefore);
    await expectLedgerOk();
  });

  it("reverses a still-held deposit out of merchant_held; it can then be neither released nor returned", async () => {
    const m = await createMerchant(t.db);
    const { depositId } = await creditDeposit(t.db, m, { gross: 4n * USD, fee: 0n }, { held: true });
    await reverseDeposit(t.db, m, depositId);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 0n, reserved: 0n, held: 0n });
    await expect(t.db.tx((c) => releaseHeldDeposit(c, { depositId }))).rejects.toBeInstanceOf(ConflictError);
    await expect(t.db.tx((c) => returnHeldDeposit(c, { depositId, reason: "x" }))).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await listHeldDeposits(t.db, { merchantId: m.merchantId })).toEqual([]);
    await expectLedgerOk();
  });

  it("refuses a deposit that is not held, an unknown one and bad input", async () => {
    const m = await createMerchant(t.db);
    const { depositId } = await creditDeposit(t.db, m, { gross: 4n * USD, fee: 0n });
    await expect(t.db.tx((c) => releaseHeldDeposit(c, { depositId }))).rejects.toBeInstanceOf(ConflictError);
    await expect(t.db.tx((c) => releaseHeldDeposit(c, { depositId: randomUUID() }))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(t.db.tx((c) => releaseHeldDeposit(c, { depositId: "nope" }))).rejects.toBeInstanceOf(ValidationError);
    const held = await creditDeposit(t.db, m, { gross: 4n * USD, fee: 0n }, { held: true });
    await expect(
      t.db.tx((c) => returnHeldDeposit(c, { depositId: held.depositId, reason: "  " })),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: 4n * USD, reserved: 0n, held: 4n * USD });
    await expectLedgerOk();
  });

  it("ledger check names a held flag that disagrees with the account credited", async () => {
    const m = await createMerchant(t.db);
    const { depositId, entryId } = await creditDeposit(t.db, m, { gross: 2n * USD, fee: 0n }, { held: true });
    await t.db.tx(async (c) => {
      await c.query("UPDATE deposits SET hold_status = NULL, held_reason = NULL WHERE id = $1", [depositId]);
      const check = await checkLedger(c);
      expect(check.problems).toContain(
        `deposit ${depositId} of merchant ${m.merchantId}: credit entry ${entryId} credited merchant_held, the deposit is not held`,
      );
      await c.query("ROLLBACK");
      await c.query("BEGIN");
    });
    await expectLedgerOk();
  });
});
