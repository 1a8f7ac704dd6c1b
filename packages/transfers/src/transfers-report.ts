import { iso } from "@mp/core";
import type { Queryable } from "@mp/db";
import { TRANSFER_STATUSES, type TransferStatus } from "./statuses.ts";

/**
 * Finance's transfers report (`payments transfers report`, later the dashboard): transfers created
 * in [from, to) (either end open), of one merchant or all, by state, with their count and their
 * totals per source and destination currency: what the payers paid (source, the fee included), the
 * fee, and what the payees were to receive (destination). Amounts are decimal strings in whole
 * units of their currency, summed exactly (numeric), whatever the networks' decimals.
 */
export interface TransfersReportTotals {
  source_currency: string;
  destination_currency: string;
  count: number;
  source_amount: string;
  fee_amount: string;
  destination_amount: string;
}

export interface TransfersReport {
  from: string | null;
  to: string | null;
  merchant_id: string | null;
  count: number;
  states: Array<{ status: TransferStatus; count: number; totals: TransfersReportTotals[] }>;
}

/** A numeric's text without trailing zeros, with at least two fraction digits (cents): "98.50". */
function tidy(value: string): string {
  const [whole = "0", fraction = ""] = value.split(".");
  return `${whole}.${fraction.replace(/0+$/, "").padEnd(2, "0")}`;
}

export async function transfersReport(
  sql: Queryable,
  options: { from?: Date | undefined; to?: Date | undefined; merchantId?: string | undefined } = {},
): Promise<TransfersReport> {
  const result = await sql.query<TransfersReportTotals & { status: TransferStatus }>(
    `SELECT t.status, q.source_asset AS source_currency, q.destination_asset AS destination_currency,
            count(*)::int AS count,
            sum(q.source_amount / power(10::numeric, q.source_decimals))::text AS source_amount,
            sum(q.fee_amount / power(10::numeric, q.source_decimals))::text AS fee_amount,
            sum(q.destination_amount / power(10::numeric, q.destination_decimals))::text AS destination_amount
       FROM transfers t JOIN transfer_quotes q ON q.id = t.quote_id
      WHERE ($1::timestamptz IS NULL OR t.created_at >= $1) AND ($2::timestamptz IS NULL OR t.created_at < $2)
        AND ($3::uuid IS NULL OR t.merchant_id = $3)
      GROUP BY t.status, q.source_asset, q.destination_asset
      ORDER BY q.source_asset, q.destination_asset`,
    [options.from ?? null, options.to ?? null, options.merchantId ?? null],
  );
  const states = TRANSFER_STATUSES.map((status) => {
    const totals = result.rows
      .filter((row) => row.status === status)
      .map(({ status: _, ...row }) => ({
        ...row,
        source_amount: tidy(row.source_amount),
        fee_amount: tidy(row.fee_amount),
        destination_amount: tidy(row.destination_amount),
      }));
    return { status, count: totals.reduce((n, row) => n + row.count, 0), totals };
  });
  return {
    from: options.from ? iso(options.from) : null,
    to: options.to ? iso(options.to) : null,
    merchant_id: options.merchantId ?? null,
    count: states.reduce((n, state) => n + state.count, 0),
    states,
  };
}
