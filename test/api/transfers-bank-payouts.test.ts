import { ServiceUnavailableError } from "@mp/core";
import { checkLedger, exportJournalCsv } from "@mp/ledger";
import { createSandboxBankingProvider, SANDBOX_PAYOUT_MAGIC } from "@mp/providers";
import { bankPayoutRequest, executeTransfersOnce, recordBankPayoutIntent } from "@mp/transfers";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { balanceToBank } from "./transfers-bank-support.ts";
import { COMPLETED_JIT_STATUSES, transferStatuses, useTransfersApi } from "./transfers-support.ts";

/**
 * The sandbox bank's payouts take PAYOUT_DELAY_MS to complete (and as long again to be returned);
 * its clock runs `skew` ahead of the real one, and the test moves it, so no pass is ever too slow
 * (PGlite) to see a payout PENDING.
 */
const PAYOUT_DELAY_MS = 60_000;
let skew = 0;

describe("transfers: payouts to a US bank account (sandbox bank)", () => {
  const { t, a, customer } = useTransfersApi();
  const bank = () => ({
    banking: createSandboxBankingProvider({ payoutDelayMs: PAYOUT_DELAY_MS, now: () => new Date(Date.now() + skew) }),
    keyring: t.api.deps.encryption,
    returnCheckSeconds: 0,
  });
  const status = async (id: string) => (await t.call(a, `/v1/transfers/${id}`)).body.data.status as string;
  const history = (id: string) => transferStatuses(t.api.db, id);
  /** Runs the executor, the bank's clock half a delay further each pass, until the transfer is `wanted`. */
  const runUntil = async (id: string, wanted: string) => {
    for (let pass = 0; (await status(id)) !== wanted; pass += 1) {
      if (pass > 10) throw new Error(`transfer ${id} is ${await status(id)}, never ${wanted}`);
      await executeTransfersOnce(t.api.db, transferTreasury, { bank: bank() });
      skew += PAYOUT_DELAY_MS / 2;
    }
  };
  beforeEach(() => {
    skew = 0;
  });

  beforeAll(async () => {
    await t.api.db.query(
      "INSERT INTO transfer_fee_overrides (merchant_id, fixed_usd_micros, basis_points) VALUES ($1, 1000000, 0)",
      [a.merchantId],
    );
    await t.credit(a, customer.virtualAccountId, "1000");
  });

  it("BALANCE -> bank: PROCESSING at once, COMPLETED only when the bank confirms; holds settled, fee earned", async () => {
    const before = await t.balance(a);
    const transfer = await balanceToBank(t, a, customer.customerId, "000123456789");
    // 99.00 USD net of the fee at the 50 bp spread, rounded down to the cent.
    expect(transfer.destination_amount.value).toBe("98.50");

    expect(await executeTransfersOnce(t.api.db, transferTreasury, { bank: bank() })).toMatchObject({
      started: 1,
      finished: 0,
    });
    expect(await status(transfer.id)).toBe("PROCESSING");
    const payout = await t.api.db.query(
      "SELECT status, amount::text AS amount, provider, provider_payout_id FROM transfer_payouts WHERE transfer_id = $1",
      [transfer.id],
    );
    expect(payout.rows).toEqual([
      {
        status: "PENDING",
        amount: "98500000",
        provider: "sandbox",
        provider_payout_id: expect.stringMatching(/^po_sbx_/),
      },
    ]);
    // Money may be leaving: no cancel any more.
    const cancel = await t.cancel(a, transfer.id);
    expect(cancel.status).toBe(409);
    expect(await t.balance(a)).toEqual({
      available: (Number(before.available) - 100).toFixed(6),
      reserved: (Number(before.reserved) + 100).toFixed(6),
    });

    await runUntil(transfer.id, "COMPLETED");
    expect(await t.balance(a)).toEqual({
      available: (Number(before.available) - 100).toFixed(6),
      reserved: before.reserved,
    });
    expect(await history(transfer.id)).toEqual(COMPLETED_JIT_STATUSES);
    const events = await t.api.db.query<{ type: string }>(
      "SELECT type FROM events WHERE object_id = $1 ORDER BY created_at, id",
      [transfer.id],
    );
    expect(events.rows.map((e) => e.type)).toContain("transfer.completed");
    // Asked again (the return window): a plain COMPLETED answer changes nothing.
    await executeTransfersOnce(t.api.db, transferTreasury, { bank: bank() });
    expect(await status(transfer.id)).toBe("COMPLETED");
    await t.expectLedgerClean();
  });

  it(`a payout the bank refuses (account ending ${SANDBOX_PAYOUT_MAGIC.failSuffix}) ends FAILED, its hold released`, async () => {
    const before = await t.balance(a);
    const transfer = await balanceToBank(t, a, customer.customerId, `98765${SANDBOX_PAYOUT_MAGIC.failSuffix}`);
    await runUntil(transfer.id, "FAILED");
    expect(await t.balance(a)).toEqual(before);
    expect(await history(transfer.id)).toEqual(["AWAITING_MERCHANT_FUNDING", "FUNDED", "PROCESSING", "FAILED"]);
    const payout = await t.api.db.query("SELECT status, reason FROM transfer_payouts WHERE transfer_id = $1", [
      transfer.id,
    ]);
    expect(payout.rows).toEqual([{ status: "FAILED", reason: SANDBOX_PAYOUT_MAGIC.failReason }]);
    const fee = await t.api.db.query("SELECT 1 FROM journal_entries WHERE kind = 'transfer_fee' AND reference = $1", [
      transfer.id,
    ]);
    expect(fee.rowCount).toBe(0);
    await t.expectLedgerClean();
  });

  it(`a payout returned after completion (account ending ${SANDBOX_PAYOUT_MAGIC.returnSuffix}) ends REFUNDED: everything given back in one balanced entry`, async () => {
    const before = await t.balance(a);
    const transfer = await balanceToBank(t, a, customer.customerId, `55555${SANDBOX_PAYOUT_MAGIC.returnSuffix}`);
    await runUntil(transfer.id, "COMPLETED");
    await runUntil(transfer.id, "REFUNDED");
    expect(await t.balance(a)).toEqual(before);
    expect(await history(transfer.id)).toEqual([...COMPLETED_JIT_STATUSES, "REFUNDED"]);
    const refund = await t.api.db.query<{ account: string; side: string; amount: string }>(
      `SELECT a.kind AS account, l.side, l.amount::text AS amount FROM journal_entries e
         JOIN journal_lines l ON l.entry_id = e.id JOIN ledger_accounts a ON a.id = l.account_id
        WHERE e.kind = 'transfer_refund' AND e.reference = $1 ORDER BY l.line_no`,
      [transfer.id],
    );
    expect(refund.rows).toEqual([
      { account: "payout_clearing", side: "debit", amount: "99000000" },
      { account: "fee_revenue", side: "debit", amount: "1000000" },
      { account: "merchant_available", side: "credit", amount: "100000000" },
    ]);
    await t.expectLedgerClean();

    // The journal export carries the transfer's whole story.
    const lines: string[] = [];
    await exportJournalCsv(t.api.db, { from: new Date(0), to: new Date(Date.now() + 60_000) }, (l) => lines.push(l));
    const kinds = lines.filter((l) => l.includes(transfer.id)).map((l) => l.split(",")[2]);
    expect(new Set(kinds)).toEqual(new Set(["hold", "hold_settle", "transfer_fee", "transfer_refund"]));
  });

  it("a crash after the payout is recorded, or a bank outage, sends it later, once", async () => {
    const transfer = await balanceToBank(t, a, customer.customerId, "000999888777");
    // The worker recorded the payout and died before calling the bank.
    expect(
      await t.api.db.tx((sql) => recordBankPayoutIntent(sql, { id: transfer.id, merchantId: a.merchantId }, "sandbox")),
    ).toBe(true);
    expect(await status(transfer.id)).toBe("PROCESSING");
    const payout = async () =>
      (
        await t.api.db.query<{ status: string; provider_payout_id: string | null; due: boolean }>(
          "SELECT status, provider_payout_id, next_check_at <= now() AS due FROM transfer_payouts WHERE transfer_id = $1",
          [transfer.id],
        )
      ).rows[0];
    expect(await payout()).toEqual({ status: "REQUESTED", provider_payout_id: null, due: true });
    // The bank is down: the payout waits (retrySeconds), nothing else changes.
    const down = {
      ...bank(),
      banking: {
        ...bank().banking,
        sendPayout: async () => {
          throw new ServiceUnavailableError("bank down");
        },
      },
    };
    expect(await executeTransfersOnce(t.api.db, transferTreasury, { bank: down })).toMatchObject({
      started: 0,
      finished: 0,
    });
    expect(await payout()).toEqual({ status: "REQUESTED", provider_payout_id: null, due: false });
    await t.api.db.query("UPDATE transfer_payouts SET next_check_at = now() WHERE transfer_id = $1", [transfer.id]);
    await executeTransfersOnce(t.api.db, transferTreasury, { bank: bank() });
    const sent = await payout();
    expect(sent).toMatchObject({ status: "PENDING", provider_payout_id: expect.stringMatching(/^po_sbx_/) });
    // Asking the bank again for the same payout (a crash after the call) is the same payout.
    const request = await bankPayoutRequest(t.api.db, t.api.deps.encryption, transfer.id);
    expect(request.creditor.accountNumber).toBe("000999888777");
    expect((await bank().banking.sendPayout(request)).providerPayoutId).toBe(sent?.provider_payout_id);
    await runUntil(transfer.id, "COMPLETED");
    await t.expectLedgerClean();
  });

  it("the ledger check names a transfer whose holds do not fit its state", async () => {
    const transfer = await balanceToBank(t, a, customer.customerId, "000111222333");
    await runUntil(transfer.id, "COMPLETED");
    // A transfer that claims to be completed while its hold is still held (the state guard and the
    // history triggers are off for the forgery, and the state put back afterwards).
    const other = await balanceToBank(t, a, customer.customerId, "000111222334");
    await t.api.db.query("ALTER TABLE transfers DISABLE TRIGGER USER");
    try {
      await t.api.db.query("UPDATE transfers SET status = 'COMPLETED' WHERE id = $1", [other.id]);
      const check = await checkLedger(t.api.db);
      expect(check.ok).toBe(false);
      expect(check.problems.join("\n")).toContain(`transfer ${other.id}`);
      expect(check.problems.join("\n")).toContain("holds should be SETTLED");
      expect(check.problems.join("\n")).not.toContain(`transfer ${transfer.id}`);
      await t.api.db.query("UPDATE transfers SET status = 'FUNDED' WHERE id = $1", [other.id]);
    } finally {
      await t.api.db.query("ALTER TABLE transfers ENABLE TRIGGER USER");
    }
    await runUntil(other.id, "COMPLETED");
    await t.expectLedgerClean();
  });
});
