import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseStatement, StatementFormatError } from "../src/index.ts";

/** Real camt.053 files (published samples and redacted real statements), read where they live. */
const CAMT_DIR = fileURLToPath(new URL("../../../../shared/fixtures/camt053/", import.meta.url));
const haveFixtures = existsSync(CAMT_DIR);
if (!haveFixtures)
  console.warn(`skipping real camt.053 statements: ${CAMT_DIR} is absent (../shared not beside the repo)`);
const camt = (name: string) => readFileSync(`${CAMT_DIR}${name}`, "utf8");

describe.skipIf(!haveFixtures)("camt.053 parsing of real statements (../shared/fixtures/camt053)", () => {
  it("v02 (FFFS Finland): 6 credits and 4 debits of the summary, booked, comments ignored", () => {
    const lines = parseStatement(camt("camt053-v02-fffs-finland-eur-batch.xml"));
    const credits = lines.filter((l) => l.direction === "CREDIT");
    expect(credits.map((l) => l.amount)).toEqual(["2000.00", "500.00", "3000.00", "2120.00", "5455.00", "10000.00"]);
    expect(lines.filter((l) => l.direction === "DEBIT").map((l) => l.amount)).toEqual([
      "1000.12",
      "4000.00",
      "4230.05",
      "200.00",
    ]);
    expect(new Set(credits.map((l) => l.account))).toEqual(new Set(["FI7433010001222090"]));
    const crossBorder = credits.find((l) => l.amount === "2120.00");
    expect(crossBorder).toMatchObject({
      currency: "EUR",
      bookingDate: "2009-10-29",
      reference: "INVOICE US20291092",
      counterparty: "DEBTOR NAME",
    });
    expect(crossBorder?.bankReference).toContain("091029ACCTSTMTARCH06");
    expect(credits.find((l) => l.amount === "5455.00")?.reference).toBe("RF98123456789012");
  });

  it("v02 (NL): a reversal is flagged, the credit carries its EndToEndId and debtor", () => {
    const lines = parseStatement(camt("camt053-v02-nl-eur-reversal-batch.xml"));
    expect(lines.map((l) => [l.direction, l.reversal, l.amount])).toEqual([
      ["DEBIT", false, "754.25"],
      ["DEBIT", true, "664.05"],
      ["CREDIT", false, "1405.31"],
    ]);
    expect(lines[2]).toMatchObject({
      account: "NL77ABNA0574908765",
      reference: "115",
      counterparty: "3rd party Media",
    });
  });

  it("v02 (NL): the reversal's return reason (RtrInf/Rsn/Cd) and end-to-end id are kept; other lines have none", () => {
    const lines = parseStatement(camt("camt053-v02-nl-eur-reversal-batch.xml"));
    // Its two TxDtls carry their amounts in AmtDtls only: the entry stays one line, read from the first.
    expect(lines[1]).toMatchObject({
      reversal: true,
      endToEndId: "TESTBANK/NL/20141229/01206408",
      returnReason: "AC06",
    });
    expect(lines.map((l) => l.returnReason)).toEqual([null, "AC06", null]);
    expect(lines[2]?.endToEndId).toBe("115");
  });

  it("v02 (FFFS): the end-to-end id is kept apart from a structured reference the line prefers", () => {
    const lines = parseStatement(camt("camt053-v02-fffs-finland-eur-batch.xml"));
    const sct = lines.find((l) => l.amount === "10000.00");
    expect(sct).toMatchObject({ reference: "RF98123456789012", endToEndId: "EndToEndIdSCT01", returnReason: null });
  });

  it("v04 (CH): a batch entry whose transactions add up becomes one line per transaction", () => {
    const lines = parseStatement(camt("camt053-v04-ch-chf-batched-credits.xml"));
    expect(lines.map((l) => [l.location, l.amount, l.reference])).toEqual([
      ["Stmt[1]/Ntry[1]/TxDtls[1]", "2187.00", "302388292000011111111111111"],
      ["Stmt[1]/Ntry[1]/TxDtls[2]", "1296.00", "302388292000022222222222222"],
    ]);
    expect(new Set(lines.map((l) => l.identity)).size).toBe(2);
  });

  it("v04 (ISO example): Othr/Id account, DtTm booking; a detail of SEK 0 does not split the entry", () => {
    const lines = parseStatement(camt("camt053-v04-iso20022-example-sek.xml"));
    expect(lines.map((l) => [l.direction, l.amount, l.currency, l.account, l.bookingDate])).toEqual([
      ["CREDIT", "105678.50", "SEK", "50000000054910000003", "2010-10-18"],
      ["DEBIT", "200000", "SEK", "50000000054910000003", "2010-10-18"],
      ["CREDIT", "30000", "SEK", "50000000054910000003", "2010-10-18"],
    ]);
    expect(lines[0]?.reference).toBe("MUELL/FINP/RA12345");
  });

  it("v04 (PostFinance): two entries sharing an AcctSvcrRef stay two lines", () => {
    const lines = parseStatement(camt("camt053-v04-postfinance-chf.xml"));
    expect(lines.map((l) => l.amount)).toEqual(["4.50", "77.70", "1500.00", "1537.00", "1692.22"]);
    expect(new Set(lines.map((l) => l.identity)).size).toBe(5);
  });

  it("v08: Sts/Cd, Dbtr/Pty/Nm and UETR are read", () => {
    const [line] = parseStatement(camt("camt053-v08-ch-chf-redacted.xml"));
    expect(line).toMatchObject({
      direction: "CREDIT",
      amount: "1284.30",
      currency: "CHF",
      account: "0035-2915203-10-000",
      bookingDate: "2023-01-25",
      counterparty: "PAYEE",
    });
    expect(line?.bankReference).toContain("75e77105-a09f-4f9e-bfa8-e82e91ab209b");
  });

  it("the payer's account of a credit: DbtrAcct IBAN with the DbtrAgt BIC (v02 BIC, v04 BICFI); none without DbtrAcct", () => {
    const nl = parseStatement(camt("camt053-v02-nl-eur-reversal-batch.xml"));
    expect(nl[2]?.payer).toEqual({
      name: "3rd party Media",
      account: "NL69ABNA0522123643",
      accountScheme: "IBAN",
      bic: "ABNANL2A",
      routingNumber: null,
    });
    // Debits name their creditor, not a payer.
    expect(nl[0]?.payer).toBeNull();
    const ch = parseStatement(camt("camt053-v04-ch-chf-batched-credits.xml"));
    expect(ch.map((l) => [l.payer?.account, l.payer?.bic])).toEqual([
      ["CH2222000000123456789", "POFICHBEXXX"],
      ["CH3333000000123456789", "POFICHBEYYY"],
    ]);
    // The cross-border credit names its debtor and bank (BOFAUS6H) but no account: no payer to pay back.
    const fi = parseStatement(camt("camt053-v02-fffs-finland-eur-batch.xml"));
    expect(fi.find((l) => l.amount === "2120.00")?.payer).toBeNull();
  });

  it("refuses a damaged real file, naming where", () => {
    const damaged = camt("camt053-v04-iso20022-example-sek.xml").replace(
      '<Amt Ccy="SEK">30000</Amt>',
      "<Amt>30000</Amt>",
    );
    expect(() => parseStatement(damaged)).toThrow(/Stmt\[1\]\/Ntry\[3\]: Amt has no Ccy/);
    const truncated = camt("camt053-v08-ch-chf-redacted.xml").slice(0, 2000);
    expect(() => parseStatement(truncated)).toThrow(StatementFormatError);
  });
});

describe("CSV statements", () => {
  const header = "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty";
  it("reads the documented columns in any order", () => {
    const lines = parseStatement(
      `reference,amount,direction,currency,booking_date,account_number,bank_reference\nINV-1,12.50,CREDIT,usd,2026-11-20,800000000001,B1\n`,
    );
    expect(lines).toEqual([
      expect.objectContaining({
        location: "line 2",
        account: "800000000001",
        amount: "12.50",
        currency: "USD",
        direction: "CREDIT",
        bankReference: "B1",
        reference: "INV-1",
        counterparty: null,
      }),
    ]);
  });

  it("reads a returned payout's reason from the optional return_reason column", () => {
    const lines = parseStatement(
      `${header},return_reason\n2026-11-20,800000000001,CREDIT,18.90,USD,B1,ABC,Payee Bank,R03\n2026-11-20,800000000001,CREDIT,1.00,USD,B2,,,\n`,
    );
    expect(lines.map((l) => l.returnReason)).toEqual(["R03", null]);
  });

  it("reads the payer's account of a credit from the counterparty_* columns", () => {
    const lines = parseStatement(
      `${header},counterparty_account,counterparty_routing_number,counterparty_bic\n` +
        "2026-11-20,800000000001,CREDIT,10.00,USD,B1,,Pat Payer,5555 6666 7777,021000021,\n" +
        "2026-11-20,800000000001,CREDIT,11.00,USD,B2,,Someone,,,\n",
    );
    expect(lines.map((l) => l.payer)).toEqual([
      { name: "Pat Payer", account: "555566667777", accountScheme: "OTHER", bic: null, routingNumber: "021000021" },
      null,
    ]);
  });

  it("refuses a bad line, naming it", () => {
    const bad = `${header}\n2026-11-20,800000000001,CREDIT,10.00,USD,B1,,\n2026-11-20,800000000001,CREDIT,-5,USD,B2,,\n`;
    expect(() => parseStatement(bad)).toThrow(/line 3: amount "-5"/);
    expect(() => parseStatement(`${header}\n2026-11-20,800000000001,SIDEWAYS,1.00,USD,B1,,\n`)).toThrow(
      /line 2: direction/,
    );
    expect(() => parseStatement(`${header}\n2026-11-20,800000000001,CREDIT,1.00,USD,,,\n`)).toThrow(/bank_reference/);
    expect(() => parseStatement("date,amount\n2026-11-20,1\n")).toThrow(/header has no booking_date/);
  });
});
