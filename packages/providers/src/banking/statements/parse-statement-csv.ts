import { parse } from "csv-parse/sync";
import { StatementFormatError, type StatementLine, type StatementPayer, statementLine } from "./statement-line.ts";

/**
 * The CSV statement format (`payments bank import FILE.csv`), for banks that export no camt.053.
 * A header row naming these columns (any order; extra columns ignored):
 *
 * | column | meaning |
 * | --- | --- |
 * | `booking_date` | YYYY-MM-DD |
 * | `account_number` | the account credited (the virtual account's number) |
 * | `direction` | `CREDIT` or `DEBIT` |
 * | `amount` | positive decimal, e.g. `1250.00` |
 * | `currency` | ISO 4217, e.g. `USD` |
 * | `bank_reference` | the bank's unique id of the booking (required: a re-import is recognised by it) |
 * | `reference` | what the payer quoted (optional) |
 * | `counterparty` | the payer's name (optional) |
 * | `counterparty_account` | the payer's account number or IBAN (optional: where a bank return pays back) |
 * | `counterparty_routing_number` | the payer's bank's ABA routing number (optional) |
 * | `counterparty_bic` | the payer's bank's BIC (optional) |
 * | `return_reason` | why the bank returned the money, on a line returning one of our payouts: an ACH return code such as `R03` (optional) |
 */
export const STATEMENT_CSV_COLUMNS = [
  "booking_date",
  "account_number",
  "direction",
  "amount",
  "currency",
  "bank_reference",
  "reference",
  "counterparty",
] as const;

/** The optional columns naming the payer's account of a credit (where a bank return pays back). */
export const STATEMENT_CSV_PAYER_COLUMNS = [
  "counterparty_account",
  "counterparty_routing_number",
  "counterparty_bic",
] as const;

const REQUIRED = ["booking_date", "account_number", "direction", "amount", "currency", "bank_reference"];

/** The payer's account of a credit row (counterparty_* columns), or null when it names none. */
function payerOf(record: Record<string, string>): StatementPayer | null {
  const account = record.counterparty_account?.replace(/\s+/g, "");
  if (!account) return null;
  return {
    name: record.counterparty || null,
    account,
    accountScheme: /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(account) ? "IBAN" : "OTHER",
    bic: record.counterparty_bic || null,
    routingNumber: record.counterparty_routing_number || null,
  };
}

export function parseStatementCsv(content: string): StatementLine[] {
  let records: Record<string, string>[];
  try {
    records = parse(content, { columns: true, skip_empty_lines: true, trim: true, bom: true });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new StatementFormatError(line ? `line ${line}` : "file", (error as Error).message);
  }
  const header = content.split(/\r?\n/, 1)[0] ?? "";
  for (const column of REQUIRED) {
    if (
      !header
        .split(",")
        .map((c) => c.trim().replace(/^"|"$/g, ""))
        .includes(column)
    ) {
      throw new StatementFormatError("line 1", `header has no ${column} column`);
    }
  }
  return records.map((record, index) => {
    const location = `line ${index + 2}`;
    const direction = record.direction?.toUpperCase();
    if (direction !== "CREDIT" && direction !== "DEBIT") {
      throw new StatementFormatError(location, "direction must be CREDIT or DEBIT");
    }
    const bankReference = record.bank_reference ?? "";
    if (bankReference.length === 0) throw new StatementFormatError(location, "bank_reference is empty");
    return statementLine(
      location,
      {
        account: record.account_number ?? "",
        direction,
        reversal: false,
        amount: record.amount ?? "",
        currency: (record.currency ?? "").toUpperCase(),
        bookingDate: record.booking_date ?? "",
        bankReference,
        reference: record.reference || null,
        counterparty: record.counterparty || null,
        payer: direction === "CREDIT" ? payerOf(record) : null,
        returnReason: record.return_reason || null,
      },
      "",
    );
  });
}
