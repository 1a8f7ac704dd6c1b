import { parse } from "csv-parse/sync";
import { StatementFormatError, type StatementLine, statementLine } from "./statement-line.ts";

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

const REQUIRED = ["booking_date", "account_number", "direction", "amount", "currency", "bank_reference"];

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
      },
      "",
    );
  });
}
