import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { assignStatementLine, importBankStatement, listUnmatchedStatementLines, returnStatementLine } from "@mp/api";
import { checkLedger } from "@mp/ledger";
import { createStatementBankingProvider } from "@mp/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { STATEMENT_CSV_HEADER, statementBank } from "./statement-bank.ts";
import { nextKey, tier2Customer } from "./verification-fixtures.ts";

const CAMT_DIR = fileURLToPath(new URL("../../../shared/fixtures/camt053/", import.meta.url));
const haveFixtures = existsSync(CAMT_DIR);
if (!haveFixtures)
  console.warn(`skipping the real camt.053 import: ${CAMT_DIR} is absent (../shared not beside the repo)`);

/**
 * The range starts at the ISO 20022 example's account (Othr/Id 50000000054910000003), so the first
 * virtual account opened here is the account that real statement is for.
 */
const settings = statementBank({ first: "50000000054910000003", last: "50000000054910009999" });

describe("banking by statement import", () => {
  let api: ApiHarness;
  let m: TestMerchant;
  let first: { id: string; number: string };
  let second: { id: string; number: string };

  async function openAccount(): Promise<{ id: string; number: string }> {
    const customerId = await tier2Customer(api, m);
    const opened = await api.call(m.apiKey, "/v1/virtual-accounts", {
      method: "POST",
      idempotencyKey: nextKey("va"),
      json: { customer_id: customerId, currency: "USD" },
    });
    expect(opened.status, opened.text).toBeLessThan(300);
    const id: string = opened.body.data.id;
    const full = await eventually(async () => {
      const res = await api.call(m.apiKey, `/v1/virtual-accounts/${id}`);
      return res.body.data.status === "ACTIVE" ? res.body.data : undefined;
    });
    return { id, number: full.deposit_instructions.bank_account_number };
  }

  async function available(): Promise<string> {
    return (await api.call(m.apiKey, "/v1/balance")).body.data.available;
  }

  beforeAll(async () => {
    api = await startApiHarness({
      workers: true,
      overrides: (db) => ({ banking: createStatementBankingProvider({ db, settings }) }),
    });
    m = await api.merchant();
    first = await openAccount();
    second = await openAccount();
  }, 120_000);
  afterAll(() => api.stop());

  it("hands out account numbers from the configured range, in order, with the bank's details", async () => {
    expect(first.number).toBe("50000000054910000003");
    expect(second.number).toBe("50000000054910000004");
    const shown = (await api.call(m.apiKey, `/v1/virtual-accounts/${first.id}`)).body.data.deposit_instructions;
    expect(shown).toMatchObject({
      bank_name: "First Statement Bank",
      bank_routing_number: "071000013",
      bank_account_number: "50000000054910000003",
    });
    expect(shown.bank_beneficiary_name).toMatch(/^Acme Payments LLC FBO /);
  });

  it.skipIf(!haveFixtures)(
    "credits a real camt.053 statement to our account exactly once; a re-import credits nothing",
    async () => {
      // The ISO 20022 business example as published, its SEK amounts read as USD (no public USD
      // camt.053 exists): two credits and a batch debit on the account our first virtual account has.
      const statement = readFileSync(`${CAMT_DIR}camt053-v04-iso20022-example-sek.xml`, "utf8").replaceAll(
        'Ccy="SEK"',
        'Ccy="USD"',
      );
      const before = await available();
      const result = await importBankStatement(api.db, {
        fileName: "iso.xml",
        content: statement,
        operator: "finance",
      });
      expect(result).toMatchObject({ format: "camt053", lines: 3, credited: 2, unmatched: 0, alreadyImported: 0 });
      expect(Number(await available()) - Number(before)).toBeCloseTo(135678.5, 6);
      const deposits = await api.call(m.apiKey, `/v1/virtual-accounts/${first.id}/deposits`);
      expect(deposits.body.data.items.map((d: { amount: string }) => d.amount).sort()).toEqual([
        "105678.500000",
        "30000.000000",
      ]);

      const again = await importBankStatement(api.db, { fileName: "iso.xml", content: statement, operator: "finance" });
      expect(again).toMatchObject({ credited: 0, alreadyImported: 3 });
      expect(Number(await available()) - Number(before)).toBeCloseTo(135678.5, 6);
    },
  );

  it.skipIf(!haveFixtures)(
    "keeps credits in other currencies or to unknown accounts as unmatched, never credited",
    async () => {
      const before = await available();
      const result = await importBankStatement(api.db, {
        fileName: "ch.xml",
        content: readFileSync(`${CAMT_DIR}camt053-v04-ch-chf-batched-credits.xml`, "utf8"),
        operator: "finance",
      });
      expect(result).toMatchObject({ lines: 2, credited: 0, unmatched: 2 });
      const unmatched = await listUnmatchedStatementLines(api.db);
      expect(unmatched.filter((l) => l.currency === "CHF").map((l) => l.reason)).toEqual([
        "currency CHF: virtual accounts hold USD",
        "currency CHF: virtual accounts hold USD",
      ]);
      expect(await available()).toBe(before);
    },
  );

  it("an overlapping CSV statement credits only its new lines; unmatched lines are assigned or returned once", async () => {
    const day1 = `${STATEMENT_CSV_HEADER}\n2026-11-20,${second.number},CREDIT,100.00,USD,BNK-1,INV-1,Payer One\n2026-11-20,${second.number},DEBIT,5.00,USD,BNK-2,,\n`;
    const day1and2 = `${day1}2026-11-21,${second.number},CREDIT,250.25,USD,BNK-3,INV-2,Payer Two\n2026-11-21,999999999999,CREDIT,40.00,USD,BNK-4,INV-?,Stranger\n`;
    const before = Number(await available());
    expect(await importBankStatement(api.db, { fileName: "d1.csv", content: day1, operator: "finance" })).toMatchObject(
      {
        format: "csv",
        credited: 1,
      },
    );
    expect(
      await importBankStatement(api.db, { fileName: "d12.csv", content: day1and2, operator: "finance" }),
    ).toMatchObject({ lines: 4, credited: 1, unmatched: 1, alreadyImported: 2 });
    expect(Number(await available()) - before).toBeCloseTo(350.25, 6);

    const stranger = (await listUnmatchedStatementLines(api.db)).find((l) => l.bankReference === "BNK-4");
    expect(stranger).toMatchObject({ reason: "no virtual account has the number 999999999999", amount: "40.00" });
    if (!stranger) throw new Error("unreachable");
    await assignStatementLine(api.db, { lineId: stranger.id, virtualAccountId: second.id, operator: "finance" });
    expect(Number(await available()) - before).toBeCloseTo(390.25, 6);
    await expect(
      assignStatementLine(api.db, { lineId: stranger.id, virtualAccountId: second.id, operator: "finance" }),
    ).rejects.toMatchObject({ code: "conflict" });
    await expect(
      returnStatementLine(api.db, { lineId: stranger.id, reason: "x", operator: "finance" }),
    ).rejects.toMatchObject({
      code: "conflict",
    });
    expect(Number(await available()) - before).toBeCloseTo(390.25, 6);
    const audit = await api.db.query("SELECT actor, action FROM operator_audit_log WHERE object_id = $1", [
      stranger.id,
    ]);
    expect(audit.rows).toEqual([{ actor: "finance", action: "bank.assign" }]);
    // Imported and assigned credits are events too, with no request (so no idempotency key) behind them.
    const events = (await api.call(m.apiKey, "/v1/events?type=bank_deposit.created&limit=200")).body.data.items;
    const ofStatement = events.filter((e: { data: { reference: string } }) =>
      ["INV-1", "INV-2", "INV-?"].includes(e.data.reference),
    );
    expect(
      ofStatement.map((e: { data: { reference: string; amount: string }; idempotency_key: string | null }) => [
        e.data.reference,
        e.data.amount,
        e.idempotency_key,
      ]),
    ).toEqual([
      ["INV-?", "40.000000", null],
      ["INV-2", "250.250000", null],
      ["INV-1", "100.000000", null],
    ]);
  });

  it("refuses a malformed file whole: nothing is recorded or credited", async () => {
    const before = await available();
    const lines = Number(
      (await api.db.query<{ count: string }>("SELECT count(*) FROM bank_statement_lines")).rows[0]?.count,
    );
    const bad = `${STATEMENT_CSV_HEADER}\n2026-11-22,${second.number},CREDIT,10.00,USD,BNK-10,,\n2026-11-22,${second.number},CREDIT,1e3,USD,BNK-11,,\n`;
    await expect(
      importBankStatement(api.db, { fileName: "bad.csv", content: bad, operator: "finance" }),
    ).rejects.toThrow(/line 3: amount "1e3"/);
    await expect(
      importBankStatement(api.db, { fileName: "bad.xml", content: "<Document><BkToCstmrStmt>", operator: "finance" }),
    ).rejects.toMatchObject({ code: "validation_error" });
    expect(await available()).toBe(before);
    expect(
      Number((await api.db.query<{ count: string }>("SELECT count(*) FROM bank_statement_lines")).rows[0]?.count),
    ).toBe(lines);
  });

  it("a line that cannot be credited to USD is returned with its reason", async () => {
    const foreign = `${STATEMENT_CSV_HEADER}\n2026-11-23,${second.number},CREDIT,70.00,EUR,BNK-20,,Euro Payer\n`;
    await importBankStatement(api.db, { fileName: "eur.csv", content: foreign, operator: "finance" });
    const line = (await listUnmatchedStatementLines(api.db)).find((l) => l.bankReference === "BNK-20");
    if (!line) throw new Error("EUR line not listed");
    await expect(
      assignStatementLine(api.db, { lineId: line.id, virtualAccountId: second.id, operator: "finance" }),
    ).rejects.toMatchObject({ code: "validation_error" });
    const returned = await returnStatementLine(api.db, {
      lineId: line.id,
      reason: "sent back: EUR",
      operator: "finance",
    });
    expect(returned.status).toBe("RETURNED");
    expect((await listUnmatchedStatementLines(api.db)).some((l) => l.id === line.id)).toBe(false);
  });

  it("an unmatched USD credit sits in bank_suspense, counted by ledger check, until it is assigned or paid back", async () => {
    const suspense = async () => {
      const check = await checkLedger(api.db);
      expect(check.problems).toEqual([]);
      return check.suspense;
    };
    const before = await suspense();
    const csv = [
      STATEMENT_CSV_HEADER,
      "2026-11-20,777777777701,CREDIT,12.34,USD,SUSP-1,,Nobody Known",
      "2026-11-20,777777777702,CREDIT,100.00,USD,SUSP-2,,Nobody Either",
    ].join("\n");
    const imported = await importBankStatement(api.db, { fileName: "suspense.csv", content: csv, operator: "finance" });
    expect(imported.unmatched).toBe(2);
    const inSuspense = await suspense();
    expect(inSuspense.lines).toBe(before.lines + 2);
    expect(inSuspense.amountUsdMicros).toBe(before.amountUsdMicros + 112_340_000n);
    expect(inSuspense.oldestSince).toBeInstanceOf(Date);

    const lines = (await listUnmatchedStatementLines(api.db)).filter((l) => l.bankReference.startsWith("SUSP-"));
    const [small, large] = [...lines].sort((a, b) => a.bankReference.localeCompare(b.bankReference));
    if (!small || !large) throw new Error("both lines unmatched");
    await assignStatementLine(api.db, { lineId: small.id, virtualAccountId: first.id, operator: "finance" });
    expect(await suspense()).toMatchObject({
      lines: before.lines + 1,
      amountUsdMicros: before.amountUsdMicros + 100_000_000n,
    });
    // Returned by bank: the line names no payer account (no counterparty_account column), so its
    // bank return stays payable with the reason, and the money stays in suspense: it is still at the bank.
    const returned = await returnStatementLine(api.db, {
      lineId: large.id,
      reason: "unknown payer",
      operator: "finance",
    });
    expect(returned.bankReturn).toMatchObject({ origin: "suspense", state: "payable", amount: "100.00" });
    expect(returned.bankReturn?.reason).toMatch(/names no payer account/);
    expect(await suspense()).toMatchObject({
      lines: before.lines + 1,
      amountUsdMicros: before.amountUsdMicros + 100_000_000n,
    });
    const entries = await api.db.query<{ kind: string }>(
      "SELECT kind FROM journal_entries WHERE reference = ANY($1::text[]) ORDER BY seq",
      [[small.id, large.id]],
    );
    expect(entries.rows.map((r) => r.kind).sort()).toEqual([
      "bank_suspense_in",
      "bank_suspense_in",
      "bank_suspense_out",
    ]);
  });
});
