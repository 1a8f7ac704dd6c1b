import { csvField, formatUsd, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";

export const JOURNAL_CSV_HEADER = "entry_id,created_at,kind,reference,account,merchant_id,debit,credit,currency";

/** Lines per query: the export streams in pages, so a year of journal never sits in memory. */
const PAGE_SIZE = 1000;

interface ExportRow {
  entry_id: string;
  created_at: Date;
  seq: string;
  line_no: number;
  kind: string;
  reference: string;
  account: string;
  merchant_id: string | null;
  side: "debit" | "credit";
  amount: string;
  currency: string;
}

/**
 * Writes the journal lines of entries created in [from, to) as CSV: the header, then one line per
 * journal line in posting order. `merchant_id` is the account's owner (empty for system accounts);
 * the amount is in the debit or the credit column, the other is empty. Each call of `write` is one
 * line without its line ending. Returns the number of journal lines written (the header excluded).
 * With `merchantId`, only the lines on that merchant's own accounts (what its finance people see).
 * `write` may return a promise (a stream's backpressure): the next page waits for it.
 */
export async function exportJournalCsv(
  q: Queryable,
  range: { from: Date; to: Date; merchantId?: string | undefined },
  write: (line: string) => unknown,
): Promise<number> {
  const { from, to } = range;
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()) || from > to) {
    throw new ValidationError("range: from and to must be dates with from <= to", "range");
  }
  await write(JOURNAL_CSV_HEADER);
  let written = 0;
  let after: { createdAt: Date; seq: string; lineNo: number } | null = null;
  for (;;) {
    const page: { rows: ExportRow[] } = await q.query<ExportRow>(
      `SELECT e.id AS entry_id, e.created_at, e.seq::text AS seq, l.line_no, e.kind, e.reference,
              a.kind AS account, a.merchant_id, l.side, l.amount::text AS amount, l.currency
         FROM journal_entries e
         JOIN journal_lines l ON l.entry_id = e.id
         JOIN ledger_accounts a ON a.id = l.account_id
        WHERE e.created_at >= $1 AND e.created_at < $2
          AND ($3::timestamptz IS NULL OR (e.created_at, e.seq, l.line_no) > ($3::timestamptz, $4::bigint, $5::smallint))
          AND ($6::uuid IS NULL OR a.merchant_id = $6::uuid)
        ORDER BY e.created_at, e.seq, l.line_no
        LIMIT ${PAGE_SIZE}`,
      [from, to, after?.createdAt ?? null, after?.seq ?? null, after?.lineNo ?? null, range.merchantId ?? null],
    );
    for (const row of page.rows) {
      const amount = formatUsd(BigInt(row.amount));
      await write(
        [
          row.entry_id,
          row.created_at.toISOString(),
          row.kind,
          row.reference,
          row.account,
          row.merchant_id ?? "",
          row.side === "debit" ? amount : "",
          row.side === "credit" ? amount : "",
          row.currency,
        ]
          .map(csvField)
          .join(","),
      );
      written += 1;
    }
    const last = page.rows.at(-1);
    if (!last || page.rows.length < PAGE_SIZE) return written;
    after = { createdAt: last.created_at, seq: last.seq, lineNo: last.line_no };
  }
}
