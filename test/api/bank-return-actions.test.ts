import { assignStatementLine, importBankStatement, listUnmatchedStatementLines, returnStatementLine } from "@mp/api";
import { ConflictError, ValidationError } from "@mp/core";
import { checkLedger } from "@mp/ledger";
import { createSandboxBankingProvider, SANDBOX_PAYOUT_MAGIC } from "@mp/providers";
import { bankReturnById, closeBankReturn, executeTransfersOnce, sendBankReturnAgain } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { useTransfersApi } from "./transfers-support.ts";

const CSV_HEADER =
  "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty,counterparty_account,counterparty_routing_number";
const GOOD = { name: "Pat Payer", accountNumber: "555566667777", routingNumber: "021000021" };
const REFUSED_ACCOUNT = `55556666${SANDBOX_PAYOUT_MAGIC.failSuffix}`;

/**
 * An operator acts on a stuck bank return (issue 29): `bank return-send` gives a payable one an
 * account (sealed) or sends a failed one again under a new payout key, `bank return-close` gives it
 * up (a suspense line unmatched again, a policy return's money the merchant's again, entry
 * `bank_return_closed`), each audited; a policy return's end is told to the merchant
 * (`bank_deposit.return_sent`, `bank_deposit.return_failed`).
 */
describe("bank returns: an operator sends a stuck one again or closes it", () => {
  const { t, a, customer } = useTransfersApi();
  // The sandbox bank answers at once: a payout completes (or fails) on its first call.
  const pass = () =>
    executeTransfersOnce(t.api.db, transferTreasury, {
      bank: { banking: createSandboxBankingProvider({ payoutDelayMs: 0 }), keyring: t.api.deps.encryption },
    });
  let lines = 0;

  /** A credit line matching nothing from `account` (none: the line names no payer); its id. */
  async function line(amount: string, account?: string): Promise<string> {
    lines++;
    const reference = `BNK-ACT-${lines}-${Date.now()}`;
    const payer = account ? `Pat Payer,${account},021000021` : ",,";
    await importBankStatement(t.api.db, {
      fileName: `${reference}.csv`,
      content: `${CSV_HEADER}\n2026-11-28,999999999999,CREDIT,${amount},USD,${reference},,${payer}\n`,
      operator: "finance",
      keyring: t.api.deps.encryption,
    });
    const found = (await listUnmatchedStatementLines(t.api.db)).find((l) => l.bankReference === reference);
    if (!found) throw new Error(`line ${reference} is not unmatched`);
    return found.id;
  }

  /** A late bank credit of `amount` to a transfer funded by bank, of a merchant whose policy is `return`: its bank return's id. */
  async function lateCredit(amount: string, account?: string): Promise<string> {
    await t.api.db.query("UPDATE merchants SET return_policy = 'return' WHERE id = $1", [a.merchantId]);
    const quote = await t.quote(a, customer.customerId);
    const transferId = (await t.transfer(a, quote.id)).body.data.id as string;
    const intentId = (await t.call(a, `/v1/transfers/${transferId}/funding`)).body.data.intent.id as string;
    await assignStatementLine(t.api.db, { lineId: await line("100.00", GOOD.accountNumber), intentId, operator: "f" });
    const lateLine = await line(amount, account);
    await assignStatementLine(t.api.db, { lineId: lateLine, intentId, operator: "f" });
    await pass();
    const { rows } = await t.api.db.query<{ id: string }>("SELECT id FROM bank_returns WHERE statement_line_id = $1", [
      lateLine,
    ]);
    if (!rows[0]) throw new Error("the late credit was not taken back");
    return rows[0].id;
  }

  const audit = async (id: string) =>
    (
      await t.api.db.query<{ action: string; actor: string }>(
        "SELECT action, actor FROM operator_audit_log WHERE object_type = 'bank_return' AND object_id = $1 ORDER BY id",
        [id],
      )
    ).rows;
  const events = async (type: string) =>
    (
      await t.api.db.query<{ object_id: string }>("SELECT object_id FROM events WHERE merchant_id = $1 AND type = $2", [
        a.merchantId,
        type,
      ])
    ).rows;

  it("a return the payer's bank refused is sent again, to an account the operator gives, under a new key, once", async () => {
    const lineId = await line("75.00", REFUSED_ACCOUNT);
    const opened = await returnStatementLine(t.api.db, { lineId, reason: "unknown payer", operator: "finance" });
    const id = opened.bankReturn?.id as string;
    await pass();
    expect(await bankReturnById(t.api.db, id)).toMatchObject({ state: "failed", reason: /R02 Account closed/ });

    const sent = await sendBankReturnAgain(t.api.db, t.api.deps.encryption, {
      returnId: id,
      operator: "ops",
      account: GOOD,
    });
    expect(sent).toMatchObject({ state: "sending", reason: null, providerPayoutId: null });
    const row = await t.api.db.query<{ payout_key: string; destination_ciphertext: Buffer }>(
      "SELECT payout_key, destination_ciphertext FROM bank_returns WHERE id = $1",
      [id],
    );
    // A new key: the bank answers the old one with the payout it refused. The account is sealed.
    expect(row.rows[0]?.payout_key).not.toBe(id);
    expect(row.rows[0]?.destination_ciphertext.toString("latin1")).not.toContain(GOOD.accountNumber);
    await pass();
    expect(await bankReturnById(t.api.db, id)).toMatchObject({ state: "returned" });
    for (let i = 0; i < 2; i++) await pass();
    const entries = await t.api.db.query<{ kind: string }>(
      "SELECT kind FROM journal_entries WHERE reference = $1 ORDER BY seq",
      [lineId],
    );
    expect(entries.rows.map((r) => r.kind)).toEqual(["bank_suspense_in", "bank_suspense_out"]);
    expect(await audit(id)).toEqual([{ action: "bank.return_sent", actor: "ops" }]);
    // Paid: nothing more to send or close.
    await expect(
      sendBankReturnAgain(t.api.db, t.api.deps.encryption, { returnId: id, operator: "ops" }),
    ).rejects.toThrow(ConflictError);
    await expect(closeBankReturn(t.api.db, { returnId: id, operator: "ops", reason: "x" })).rejects.toThrow(
      ConflictError,
    );
    await t.expectLedgerClean();
  });

  it("a payable suspense return closed: the line is unmatched again, still in suspense, and may be returned again", async () => {
    const lineId = await line("12.34");
    const id = (await returnStatementLine(t.api.db, { lineId, reason: "unknown payer", operator: "finance" }))
      .bankReturn?.id as string;
    expect(await bankReturnById(t.api.db, id)).toMatchObject({ state: "payable" });
    // Nothing to send it to: the operator must give an account.
    await expect(
      sendBankReturnAgain(t.api.db, t.api.deps.encryption, { returnId: id, operator: "ops" }),
    ).rejects.toThrow(ValidationError);
    await expect(closeBankReturn(t.api.db, { returnId: id, operator: "ops", reason: " " })).rejects.toThrow(
      ValidationError,
    );
    expect(await closeBankReturn(t.api.db, { returnId: id, operator: "ops", reason: "paid by hand" })).toMatchObject({
      state: "closed",
      reason: "paid by hand",
    });
    const unmatched = (await listUnmatchedStatementLines(t.api.db)).find((l) => l.id === lineId);
    expect(unmatched?.reason).toMatch(/its bank return was closed: paid by hand/);
    await t.expectLedgerClean();
    const again = await returnStatementLine(t.api.db, { lineId, reason: "once more", operator: "finance" });
    expect(again.bankReturn?.id).not.toBe(id);
    expect(again.bankReturn?.state).toBe("payable");
    expect(await audit(id)).toEqual([{ action: "bank.return_closed", actor: "ops" }]);
    await t.expectLedgerClean();
  });

  it("a policy return: failed and sent again (events told), or closed (its money the merchant's again)", async () => {
    const failing = await lateCredit("40.00", REFUSED_ACCOUNT);
    await pass();
    expect(await bankReturnById(t.api.db, failing)).toMatchObject({ state: "failed", origin: "late_funding" });
    expect(await events("bank_deposit.return_failed")).toHaveLength(1);
    await sendBankReturnAgain(t.api.db, t.api.deps.encryption, { returnId: failing, operator: "ops", account: GOOD });
    await pass();
    expect(await bankReturnById(t.api.db, failing)).toMatchObject({ state: "returned" });
    expect(await events("bank_deposit.return_sent")).toHaveLength(1);
    await t.expectLedgerClean();

    const payable = await lateCredit("25.00");
    expect(await bankReturnById(t.api.db, payable)).toMatchObject({ state: "payable" });
    const before = await t.balance(a);
    const flag = async () => {
      const { rows } = await t.api.db.query<{ transfer_id: string; bank_deposit_id: string }>(
        "SELECT transfer_id, bank_deposit_id FROM bank_returns WHERE id = $1",
        [payable],
      );
      const row = rows[0] as { transfer_id: string; bank_deposit_id: string };
      const funding = await t.call(a, `/v1/transfers/${row.transfer_id}/funding`);
      return {
        flag: funding.body.data.intent.flag as { code: string; message: string },
        depositId: row.bank_deposit_id,
      };
    };
    const taken = await flag();
    expect(taken.flag.code).toBe("LATE_PAYMENT");
    expect(taken.flag.message).toContain(
      `sent back to its payer by bank by the merchant's return policy (bank deposit ${taken.depositId})`,
    );
    await closeBankReturn(t.api.db, { returnId: payable, operator: "ops", reason: "the customer keeps it" });
    // The flag no longer says the money went back: it says where it is.
    const closed = await flag();
    expect(closed.flag.message).not.toContain("sent back to its payer");
    expect(closed.flag.message).toContain(
      `added to the merchant's available balance: its return by bank was closed (bank deposit ${taken.depositId}: the customer keeps it)`,
    );
    expect(Number((await t.balance(a)).available) - Number(before.available)).toBeCloseTo(25, 6);
    const entries = await t.api.db.query<{ kind: string }>(
      "SELECT kind FROM journal_entries WHERE reference = $1 ORDER BY seq",
      [payable],
    );
    expect(entries.rows.map((r) => r.kind)).toEqual(["bank_policy_return", "bank_return_closed"]);
    // The worker does not take it back again.
    for (let i = 0; i < 2; i++) await pass();
    expect(Number((await t.balance(a)).available) - Number(before.available)).toBeCloseTo(25, 6);
    expect(await bankReturnById(t.api.db, payable)).toMatchObject({ state: "closed" });
    await t.expectLedgerClean();
    // `ledger check` holds a closed return to its entry: one that owes another amount is reported.
    registerLedgerChecks();
    await t.api.db.query("UPDATE bank_returns SET owed_usd_micros = owed_usd_micros + 10000 WHERE id = $1", [payable]);
    try {
      expect((await checkLedger(t.api.db)).problems).toContainEqual(
        `bank return ${payable} is closed but its bank_return_closed entry moved 25000000 micro-USD of 25010000`,
      );
    } finally {
      await t.api.db.query("UPDATE bank_returns SET owed_usd_micros = owed_usd_micros - 10000 WHERE id = $1", [
        payable,
      ]);
    }
    await t.expectLedgerClean();
  });
});
