import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { importBankStatement } from "@mp/api";
import { checkLedger } from "@mp/ledger";
import { createStatementBankingProvider, PAIN001_NAMESPACE } from "@mp/providers";
import { executeTransfersOnce, exportStatementPayouts, transfersReport } from "@mp/transfers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { runCli } from "../cli/run-cli.ts";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { useTempDir } from "../support/test-database.ts";
import { camtPayoutReturn, haveCamtReturnSample } from "./camt-payout-return.ts";
import { STATEMENT_CSV_HEADER, statementBank } from "./statement-bank.ts";
import { usBank } from "./transfers-bank-support.ts";
import { nextKey, tier2Customer } from "./verification-fixtures.ts";

const settings = statementBank({ first: "7000000100", last: "7000009999" });
const DEBTOR = { name: "Acme Payments LLC", accountNumber: "7000000001", routingNumber: "071000013" };

/** The elements of `tag` in `xml`, their text (the file is flat: one element per tag occurrence). */
function all(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</${tag}>`, "g"))].map((m) => m[1] ?? "");
}

/**
 * Production payouts (BANKING_PROVIDER=statement): FUNDED bank transfers queue at the statement bank,
 * finance exports them as one pain.001 file, and the statements imported afterwards confirm them
 * (a debit quoting the end-to-end id) or return them (a credit quoting it).
 */
describe("transfers: payouts by pain.001 export and statement import", () => {
  let api: ApiHarness;
  let m: TestMerchant;
  const dataDir = useTempDir("mpstmret-");
  let customerId: string;
  let accountNumber: string;
  const bank = () => ({
    banking: createStatementBankingProvider({ db: api.db, settings }),
    keyring: api.deps.encryption,
    returnCheckSeconds: 0,
  });
  const status = async (id: string) => (await api.call(m.apiKey, `/v1/transfers/${id}`)).body.data.status as string;
  /** One pass of the transfer executor with the statement bank. */
  const executorPass = () => executeTransfersOnce(api.db, transferTreasury, { bank: bank() });
  /** A transfer of `amount` USD from the merchant's balance to a US bank account: FUNDED at once. */
  const payFromBalance = async (account: string, amount: string) => {
    const quote = await api.call(m.apiKey, "/v1/quotes", {
      method: "POST",
      idempotencyKey: nextKey("quote"),
      json: {
        customer_id: customerId,
        source: { method: "BALANCE" },
        destination: usBank(account),
        source_amount: amount,
      },
    });
    expect(quote.status, quote.text).toBe(201);
    const created = await api.call(m.apiKey, "/v1/transfers", {
      method: "POST",
      idempotencyKey: nextKey("transfer"),
      json: { quote_id: quote.body.data.id },
    });
    expect(created.body.data.status).toBe("FUNDED");
    return created;
  };
  const statement = (rows: string[]) =>
    importBankStatement(api.db, {
      fileName: "statement.csv",
      content: [STATEMENT_CSV_HEADER, ...rows].join("\n"),
      format: "csv",
      operator: "finance@test",
    });

  beforeAll(async () => {
    api = await startApiHarness({
      workers: true,
      overrides: (db) => ({ banking: createStatementBankingProvider({ db, settings }) }),
    });
    m = await api.merchant();
    customerId = await tier2Customer(api, m);
    const opened = await api.call(m.apiKey, "/v1/virtual-accounts", {
      method: "POST",
      idempotencyKey: nextKey("va"),
      json: { customer_id: customerId, currency: "USD" },
    });
    const id = opened.body.data.id as string;
    accountNumber = await eventually(async () => {
      const res = await api.call(m.apiKey, `/v1/virtual-accounts/${id}`);
      return res.body.data.status === "ACTIVE"
        ? (res.body.data.deposit_instructions.bank_account_number as string)
        : undefined;
    });
    await api.db.query(
      "INSERT INTO transfer_fee_overrides (merchant_id, fixed_usd_micros, basis_points) VALUES ($1, 1000000, 0)",
      [m.merchantId],
    );
    // The merchant's money arrives by statement too.
    expect(await statement([`2026-11-20,${accountNumber},CREDIT,1000.00,USD,BNK-1,,Payer Inc`])).toMatchObject({
      credited: 1,
    });
  }, 120_000);
  afterAll(() => api?.stop());

  it("exports queued payouts once as a valid pain.001; the statement confirms and returns them; the report adds up", async () => {
    const transfers: Array<{ id: string; amount: string }> = [];
    for (const [amount, account] of [
      ["100.00", "123456789"],
      ["50.00", "222233334444"],
      ["20.00", "5550003"],
    ] as const) {
      const created = await payFromBalance(account, amount);
      transfers.push({ id: created.body.data.id, amount: created.body.data.destination_amount.value });
    }
    expect(transfers.map((t) => t.amount)).toEqual(["98.50", "48.75", "18.90"]);
    const [big, mid, small] = transfers as [(typeof transfers)[0], (typeof transfers)[0], (typeof transfers)[0]];
    const e2e = (id: string) => id.replaceAll("-", "").toUpperCase();
    const statuses = async () => [await status(big.id), await status(mid.id), await status(small.id)];

    expect(await executorPass()).toMatchObject({ started: 3, finished: 0 });
    for (const t of transfers) expect(await status(t.id)).toBe("PROCESSING");

    const exported = await exportStatementPayouts(api.db, api.deps.encryption, {
      debtor: DEBTOR,
      operator: "finance@test",
    });
    if (!exported) throw new Error("nothing exported");
    expect(exported).toMatchObject({ payouts: 3, controlSum: "166.15", reexport: false });
    const xml = exported.document;
    // Well-formed enough to be read element by element, with the schema's namespace and structure.
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(xml).toContain(`<Document xmlns="${PAIN001_NAMESPACE}">`);
    for (const tag of ["Document", "CstmrCdtTrfInitn", "GrpHdr", "PmtInf"]) {
      expect(xml.split(new RegExp(`<${tag}[ >]`)).length - 1, tag).toBe(1);
      expect(xml.split(`</${tag}>`).length - 1, tag).toBe(1);
    }
    expect(all(xml, "NbOfTxs")).toEqual(["3", "3"]);
    expect(all(xml, "CtrlSum")).toEqual(["166.15", "166.15"]);
    expect(all(xml, "MsgId")).toEqual([exported.messageId]);
    expect(all(xml, "EndToEndId")).toEqual(transfers.map((t) => e2e(t.id)));
    expect(all(xml, "InstdAmt")).toEqual(["98.50", "48.75", "18.90"]);
    expect(all(xml, "PmtMtd")).toEqual(["TRF"]);
    // Account numbers in full in the file (the bank needs them), routing numbers as USABA members.
    expect(xml).toContain("<CdtrAcct><Id><Othr><Id>222233334444</Id></Othr></Id>");
    expect(all(xml, "MmbId")).toEqual(["071000013", "021000021", "021000021", "021000021"]);

    // Each payout is exported once; the batch can be written again, byte for byte.
    expect(
      await exportStatementPayouts(api.db, api.deps.encryption, { debtor: DEBTOR, operator: "finance@test" }),
    ).toBe(undefined);
    const again = await exportStatementPayouts(api.db, api.deps.encryption, {
      debtor: DEBTOR,
      operator: "finance@test",
      batchId: exported.batchId,
    });
    expect(again).toEqual({ ...exported, reexport: true });

    await executorPass();
    const sent = await api.db.query<{ status: string }>(
      "SELECT status FROM transfer_payouts WHERE transfer_id = ANY($1::uuid[])",
      [transfers.map((t) => t.id)],
    );
    expect(sent.rows.map((r) => r.status)).toEqual(["SENT", "SENT", "SENT"]);

    // The bank's statement: three debits, one of them with a wrong amount for finance to look at.
    const confirmed = await statement([
      `2026-11-26,7000000001,DEBIT,98.50,USD,OUT-1,${e2e(big.id)},Pat Payee`,
      `2026-11-26,7000000001,DEBIT,49.00,USD,OUT-2,${e2e(mid.id)},Pat Payee`,
      `2026-11-26,7000000001,DEBIT,18.90,USD,OUT-3,${e2e(small.id)},Pat Payee`,
    ]);
    expect(confirmed).toMatchObject({ credited: 0, unmatched: 1, payoutsCompleted: 2, payoutsReturned: 0 });
    expect(await executorPass()).toMatchObject({ started: 0, finished: 2 });
    expect(await statuses()).toEqual(["COMPLETED", "PROCESSING", "COMPLETED"]);

    // The small one comes back; the middle one is confirmed by the corrected line.
    const returned = await statement([
      `2026-11-27,7000000001,CREDIT,18.90,USD,RET-1,RETURN R03 ${e2e(small.id)},Payee Bank`,
      `2026-11-27,7000000001,DEBIT,48.75,USD,OUT-2B,${e2e(mid.id)},Pat Payee`,
    ]);
    expect(returned).toMatchObject({ credited: 0, unmatched: 0, payoutsCompleted: 1, payoutsReturned: 1 });
    expect(await executorPass()).toMatchObject({ started: 0, finished: 2 });
    expect(await statuses()).toEqual(["COMPLETED", "COMPLETED", "REFUNDED"]);
    // 1000 - 100 - 50 paid out, fees included (the 20 of the returned one came back whole).
    expect((await api.call(m.apiKey, "/v1/balance")).body.data).toMatchObject({
      available: "850.000000",
      reserved: "0.000000",
    });
    const check = await checkLedger(api.db);
    expect(check.problems).toEqual([]);

    const report = await transfersReport(api.db, { merchantId: m.merchantId });
    expect(report.count).toBe(3);
    const byStatus = Object.fromEntries(report.states.map((s) => [s.status, s]));
    expect(byStatus.COMPLETED).toEqual({
      status: "COMPLETED",
      count: 2,
      totals: [
        {
          source_currency: "USD",
          destination_currency: "USD",
          count: 2,
          source_amount: "150.00",
          fee_amount: "2.00",
          destination_amount: "147.25",
        },
      ],
    });
    expect(byStatus.REFUNDED?.totals).toEqual([
      {
        source_currency: "USD",
        destination_currency: "USD",
        count: 1,
        source_amount: "20.00",
        fee_amount: "1.00",
        destination_amount: "18.90",
      },
    ]);
    expect(byStatus.FUNDED).toEqual({ status: "FUNDED", count: 0, totals: [] });
    // A window that ends before these transfers: nothing.
    expect((await transfersReport(api.db, { merchantId: m.merchantId, to: new Date(0) })).count).toBe(0);
  });

  it.skipIf(!haveCamtReturnSample)(
    "a completed payout the payee's bank returns in a camt.053 (a reversal with an ACH reason) ends REFUNDED with that reason",
    async () => {
      const before = (await api.call(m.apiKey, "/v1/balance")).body.data.available as string;
      const created = await payFromBalance("333344445555", "30.00");
      const id = created.body.data.id as string;
      const paid = created.body.data.destination_amount.value as string;
      // A completed payout is asked about hourly, as in production: the return is followed because its line is.
      const hourlyPass = () =>
        executeTransfersOnce(api.db, transferTreasury, { bank: { ...bank(), returnCheckSeconds: 3600 } });
      const e2e = id.replaceAll("-", "").toUpperCase();
      await hourlyPass();
      expect(
        await exportStatementPayouts(api.db, api.deps.encryption, { debtor: DEBTOR, operator: "finance@test" }),
      ).toMatchObject({ payouts: 1 });
      await hourlyPass();
      expect(await statement([`2026-11-28,7000000001,DEBIT,${paid},USD,OUT-R1,${e2e},Pat Payee`])).toMatchObject({
        payoutsCompleted: 1,
      });
      await hourlyPass();
      expect(await status(id)).toBe("COMPLETED");

      // The bank books the return as the reversal of the debit, naming the payout only by its EndToEndId.
      // Finance imports it as it would: `payments bank import FILE`.
      const content = camtPayoutReturn({ endToEndId: e2e, amount: paid, achCode: "R03" });
      const file = join(dataDir, "return.camt053.xml");
      writeFileSync(file, content);
      const cli = await runCli(["bank", "import", file], {
        DATA_DIR: dataDir,
        DATABASE_URL: api.testDb.connectionString,
        ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        BANKING_PROVIDER: "statement",
        BANK_NAME: settings.bankName,
        BANK_ADDRESS: settings.bankAddress,
        BANK_ROUTING_NUMBER: settings.routingNumber,
        BANK_ACCOUNT_NAME: settings.accountName,
        BANK_ACCOUNT_RANGE: `${settings.accountRange.first}-${settings.accountRange.last}`,
        BANK_PAYOUT_ACCOUNT: DEBTOR.accountNumber,
      });
      expect(cli.code, cli.stdout + cli.stderr).toBe(0);
      expect(JSON.parse(cli.stdout)).toMatchObject({ format: "camt053", lines: 1, payouts_returned: 1 });
      const line = await api.db.query<{ status: string; return_reason: string; reversal: boolean }>(
        "SELECT l.status, l.return_reason, l.reversal FROM bank_statement_lines l JOIN statement_bank_payouts p ON p.returned_line_id = l.id WHERE p.payout_id = $1",
        [id],
      );
      expect(line.rows).toEqual([{ status: "RECORDED", return_reason: "R03", reversal: true }]);
      // Followed at the next pass, not an hour later.
      await hourlyPass();
      const refunded = (await api.call(m.apiKey, `/v1/transfers/${id}`)).body.data;
      expect(refunded.status).toBe("REFUNDED");
      expect(refunded.failure_reason).toBe(
        `the payee's bank returned the payout after it completed: returned by the bank: R03 No account/unable to locate account (statement: ${e2e})`,
      );
      // Everything the transfer cost is the merchant's again (a BALANCE transfer: the money was its own).
      expect((await api.call(m.apiKey, "/v1/balance")).body.data.available).toBe(before);
      const events = await api.db.query<{ type: string }>(
        "SELECT type FROM events WHERE merchant_id = $1 AND object_id = $2 ORDER BY seq",
        [m.merchantId, id],
      );
      expect(events.rows.map((e) => e.type).slice(-2)).toEqual(["transfer.completed", "transfer.refunded"]);
      expect((await checkLedger(api.db)).problems).toEqual([]);
      // The same file again changes nothing.
      expect(
        await importBankStatement(api.db, { fileName: "return.camt053.xml", content, operator: "finance@test" }),
      ).toMatchObject({ alreadyImported: 1, payoutsReturned: 0 });
      await hourlyPass();
      expect((await api.call(m.apiKey, "/v1/balance")).body.data.available).toBe(before);
    },
  );
});
