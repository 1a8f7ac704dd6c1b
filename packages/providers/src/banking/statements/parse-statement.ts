import { parseCamt053 } from "./parse-camt053.ts";
import { parseStatementCsv } from "./parse-statement-csv.ts";
import type { StatementFormat, StatementLine } from "./statement-line.ts";

/** The format of a statement file: camt.053 when it is XML, else CSV. */
export function detectStatementFormat(content: string): StatementFormat {
  return content.trimStart().startsWith("<") ? "camt053" : "csv";
}

/** Parses and validates the whole file; throws StatementFormatError naming the line or element at fault. */
export function parseStatement(content: string, format = detectStatementFormat(content)): StatementLine[] {
  return format === "camt053" ? parseCamt053(content) : parseStatementCsv(content);
}
