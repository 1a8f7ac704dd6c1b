import { assignStatementLine, importBankStatement, listUnmatchedStatementLines, returnStatementLine } from "@mp/api";
import { checkLedger, readBankSuspense } from "@mp/ledger";
import { createStatementBankingProvider, payoutEndToEndId } from "@mp/providers";
import {
  bankReturnById,
  closeBankReturn,
  executeTransfersOnce,
  exportStatementPayouts,
  sendBankReturnAgain,
} from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { camtPayoutReturn, haveCamtReturnSample } from "./camt-payout-return.ts";
import { statementBank } from "./statement-bank.ts";
import { useTransfersApi } from "./transfers-support.ts";

const CSV_HEADER =
  "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty,counterparty_account,counterparty_routing_number,return_reason";
const PAYER = { name: "Pat Payer", accountNumber: "555566667777", routingNumber: "021000021" };
const DEBTOR = { name: "Acme Payments LLC", accountNumber: "7000000001", routingNumber: "071000013" };
const settings = statementBank({ first: "7100000100", last: "7100009999" });

/**
 * A bank return's own payout that the payer's bank sends back after the bank paid it (issue 29): the
 * statement bank (pain.001 export, statements confirming and returning payouts by end-to-end id),
 * the return `returned`, then a statement line returning its payout: the return is `failed` with
 * the bank's reason, the money back (a suspense line in suspense again; a policy return's in
 * returns_payable), once per payout key, whatever is imported or passed again; an operator then
 * sends it again under a new key or closes it.
 */
describe("bank returns: a paid return the payer's bank sends back", () => {
  const { t, a, customer } = useTransfersApi();
  // A paid return is asked about hourly, as in production: a statement line returning it makes it due.
  const pass = () =>
    executeTransfersOnce(t.api.db, transferTreasury, {
      bank: {
        banking: createStatementBankingProvider({ db: t.api.db, settings }),
        keyring: t.api.deps.encryption,
        returnCheckSeconds: 3600,
      },
    });
  let files = 0;
  const csv = (rows: string[]) => {
    files++;
    return importBankStatement(t.api.db, {
      fileName: `bounce-${files}.csv`,
      content: [CSV_HEADER, ...rows].join("\n"),
      operator: "finance",
      keyring: t.api.deps.encryption,
    });
  };
  const payoutKey = async (id: string) =>
    (await t.api.db.query<{ payout_key: string }>("SELECT payout_key FROM bank_returns WHERE id = $1", [id])).rows[0]
      ?.payout_key as string;

  /** A credit line from the payer matching no account; its id. */
  async function line(amount: string): Promise<string> {
    const reference = `BNK-BOUNCE-${files + 1}-${Date.now()}`;
    await csv([
      `2026-11-28,999999999999,CREDIT,${amount},USD,${reference},,${PAYER.name},${PAYER.accountNumber},${PAYER.routingNumber},`,
    ]);
    const found = (await listUnmatchedStatementLines(t.api.db)).find((l) => l.bankReference === reference);
    if (!found) throw new Error(`line ${reference} is not unmatched`);
    return found.id;
  }

  /** Return `id`'s current payout queued, exported in a pain.001 and confirmed by the next statement's debit: `returned`. */
  async function paid(id: string, amount: string): Promise<string> {
    await pass();
    const exported = await exportStatementPayouts(t.api.db, t.api.deps.encryption, {
      debtor: DEBTOR,
      operator: "finance",
    });
    expect(exported?.payouts).toBe(1);
    await pass();
    const key = await payoutKey(id);
    expect(
      await csv([`2026-11-29,${DEBTOR.accountNumber},DEBIT,${amount},USD,OUT-${key},${payoutEndToEndId(key)},,,,`]),
    ).toMatchObject({ payoutsCompleted: 1 });
    await pass();
    expect(await bankReturnById(t.api.db, id)).toMatchObject({ state: "returned", reason: null });
    return key;
  }

  const kinds = async (references: string[]) =>
    (
      await t.api.db.query<{ kind: string; reference: string }>(
        "SELECT kind, reference FROM journal_entries WHERE reference = ANY($1::text[]) ORDER BY seq",
        [references],
      )
    ).rows.map((r) => `${r.kind} ${r.reference}`);
  const expectClean = async () => {
    registerLedgerChecks();
    expect((await checkLedger(t.api.db)).problems).toEqual([]);
  };

  it("a suspense return (CSV): failed with the R01 reason, the line in suspense again, once; sent again and paid", async () => {
    const lineId = await line("60.00");
    const id = (await returnStatementLine(t.api.db, { lineId, reason: "unknown payer", operator: "finance" }))
      .bankReturn?.id as string;
    const suspenseBefore = (await readBankSuspense(t.api.db)).lines;
    const first = await paid(id, "60.00");
    expect((await readBankSuspense(t.api.db)).lines).toBe(suspenseBefore - 1);
    await expectClean();

    // The payer's bank sends the payment back: a credit quoting the payout's end-to-end id, with its reason.
    const back = `2026-11-30,${DEBTOR.accountNumber},CREDIT,60.00,USD,RET-${first},RETURN ${payoutEndToEndId(first)},,,,R01`;
    expect(await csv([back])).toMatchObject({ payoutsReturned: 1, unmatched: 0 });
    // Followed at the next pass (not an hour later), and only once however often it passes.
    for (let i = 0; i < 3; i++) await pass();
    const failed = await bankReturnById(t.api.db, id);
    expect(failed).toMatchObject({ state: "failed", returnedAt: null });
    expect(failed?.reason).toBe(
      `the payer's bank sent the return back after it was paid: returned by the bank: R01 Insufficient funds (statement: RETURN ${payoutEndToEndId(first)}); it is still owed`,
    );
    // In suspense again, as a new stay of the line.
    expect((await readBankSuspense(t.api.db)).lines).toBe(suspenseBefore);
    expect(await kinds([lineId, `${lineId}:${first}`])).toEqual([
      `bank_suspense_in ${lineId}`,
      `bank_suspense_out ${lineId}`,
      `bank_suspense_in ${lineId}:${first}`,
    ]);
    await expectClean();

    // The same statement imported again changes nothing.
    expect(await csv([back])).toMatchObject({ alreadyImported: 1, payoutsReturned: 0 });
    await pass();
    expect(await bankReturnById(t.api.db, id)).toMatchObject({ state: "failed" });
    const bounces = await t.api.db.query("SELECT payout_key FROM bank_return_bounces WHERE return_id = $1", [id]);
    expect(bounces.rows).toEqual([{ payout_key: first }]);

    // The operator sends it again: a new payout key, paid, the line's second stay out of suspense.
    await sendBankReturnAgain(t.api.db, t.api.deps.encryption, { returnId: id, operator: "ops" });
    const second = await paid(id, "60.00");
    expect(second).not.toBe(first);
    expect(await kinds([lineId, `${lineId}:${first}`])).toEqual([
      `bank_suspense_in ${lineId}`,
      `bank_suspense_out ${lineId}`,
      `bank_suspense_in ${lineId}:${first}`,
      `bank_suspense_out ${lineId}:${first}`,
    ]);
    expect((await readBankSuspense(t.api.db)).lines).toBe(suspenseBefore - 1);
    await expectClean();
  });

  it.skipIf(!haveCamtReturnSample)(
    "a policy return (camt.053 reversal): failed with the reason, returns_payable again, the merchant told; closed",
    async () => {
      await t.api.db.query("UPDATE merchants SET return_policy = 'return' WHERE id = $1", [a.merchantId]);
      const quote = await t.quote(a, customer.customerId);
      const transferId = (await t.transfer(a, quote.id)).body.data.id as string;
      const intentId = (await t.call(a, `/v1/transfers/${transferId}/funding`)).body.data.intent.id as string;
      await assignStatementLine(t.api.db, { lineId: await line("100.00"), intentId, operator: "finance" });
      const lateLine = await line("40.00");
      await assignStatementLine(t.api.db, { lineId: lateLine, intentId, operator: "finance" });
      await pass();
      const { rows } = await t.api.db.query<{ id: string; bank_deposit_id: string }>(
        "SELECT id, bank_deposit_id FROM bank_returns WHERE statement_line_id = $1",
        [lateLine],
      );
      const { id, bank_deposit_id: depositId } = rows[0] as { id: string; bank_deposit_id: string };
      const availableTaken = (await t.balance(a)).available;
      const key = await paid(id, "40.00");
      await expectClean();

      // The payer's bank books the return as the reversal of our debit (the real NL return's shape).
      const content = camtPayoutReturn({ endToEndId: payoutEndToEndId(key), amount: "40.00", achCode: "R01" });
      const imported = () =>
        importBankStatement(t.api.db, { fileName: "bounce.camt053.xml", content, operator: "finance" });
      expect(await imported()).toMatchObject({ payoutsReturned: 1 });
      for (let i = 0; i < 2; i++) await pass();
      const failed = await bankReturnById(t.api.db, id);
      expect(failed).toMatchObject({ state: "failed", origin: "late_funding" });
      expect(failed?.reason).toMatch(
        /^the payer's bank sent the return back after it was paid: returned by the bank: R01 Insufficient funds \(statement: .+\); it is still owed$/,
      );
      // Its first payout key is its id, the reference of what the policy took back too.
      expect(key).toBe(id);
      expect(await kinds([key])).toEqual([
        `bank_policy_return ${id}`,
        `bank_return_paid ${key}`,
        `bank_return_bounced ${key}`,
      ]);
      // Still owed to the payer (returns_payable, checked by ledger check), not the merchant's.
      expect((await t.balance(a)).available).toBe(availableTaken);
      const told = await t.api.db.query<{ type: string }>(
        "SELECT type FROM events WHERE merchant_id = $1 AND object_id = $2 AND type LIKE 'bank_deposit.return_%' ORDER BY seq",
        [a.merchantId, depositId],
      );
      expect(told.rows.map((r) => r.type)).toEqual([
        "bank_deposit.returned",
        "bank_deposit.return_sent",
        "bank_deposit.return_failed",
      ]);
      await expectClean();

      // `ledger check` holds the bounce to its entries: a return owing another amount is reported.
      await t.api.db.query("UPDATE bank_returns SET owed_usd_micros = owed_usd_micros + 10000 WHERE id = $1", [id]);
      try {
        registerLedgerChecks();
        expect((await checkLedger(t.api.db)).problems).toContainEqual(
          `payout ${key} of bank return ${id} was sent back, but its bank_return_paid moved 40000000 and its bank_return_bounced 40000000 micro-USD of 40010000`,
        );
      } finally {
        await t.api.db.query("UPDATE bank_returns SET owed_usd_micros = owed_usd_micros - 10000 WHERE id = $1", [id]);
      }
      await expectClean();

      // Imported again: nothing more.
      expect(await imported()).toMatchObject({ alreadyImported: 1, payoutsReturned: 0 });
      await pass();
      expect(await kinds([key])).toHaveLength(3);

      // Finance gives it up: the money is the merchant's again.
      await closeBankReturn(t.api.db, { returnId: id, operator: "ops", reason: "the payer's account is closed" });
      expect(Number((await t.balance(a)).available) - Number(availableTaken)).toBeCloseTo(40, 6);
      await expectClean();
    },
  );
});
