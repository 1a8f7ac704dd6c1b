import { defineListQuery } from "@mp/api";
import type { Queryable } from "@mp/db";
import { QUOTE_COLUMNS, type QuoteRow, toQuoteResource } from "@mp/transfers";
import { type PricingRow, spreadOf } from "./transfer-spreads.ts";

/** Where a quote stands: usable until it expires, then expired; used once a transfer took it. */
export const QUOTE_STATES = ["open", "expired", "used"] as const;
export type QuoteState = (typeof QUOTE_STATES)[number];

const STATE_CLAUSES: Record<QuoteState, string> = {
  open: "used_at IS NULL AND expires_at > now()",
  expired: "used_at IS NULL AND expires_at <= now()",
  used: "used_at IS NOT NULL",
};

type QuotePageRow = QuoteRow & PricingRow & { expired: boolean };

// The pricing a spread needs besides the quote's own columns, and whether it expired by the
// database's clock (the same clock POST /v1/transfers checks), not the page's.
const COLUMNS = `${QUOTE_COLUMNS}, spread_bps, source_usd_rate, destination_usd_rate, expires_at <= now() AS expired`;

/** The quotes page's item: the quote as /v1 answers it, its state and what the rate's spread kept. */
export function quotePageItem(row: QuotePageRow) {
  const state: QuoteState = row.used_at !== null ? "used" : row.expired ? "expired" : "open";
  return {
    ...toQuoteResource(row),
    state,
    spread_bps: row.spread_bps,
    spread: { value: spreadOf(row), currency: row.destination_asset },
  };
}

/** The merchant's quotes, newest first (one customer's, or in one state, when asked). */
export const listQuotes = defineListQuery(
  { from: "transfer_quotes", columns: COLUMNS, toItems: (rows: QuotePageRow[]) => rows.map(quotePageItem) },
  "merchant_id",
  (where, filters: { customer_id?: string | undefined; state?: QuoteState | undefined }) => {
    where.equal(filters, "customer_id");
    if (filters.state) where.addClause(STATE_CLAUSES[filters.state]);
  },
);

/** One of the merchant's quotes as the page shows it, or undefined (another merchant's as a missing one). */
export async function findQuotePageItem(sql: Queryable, merchantId: string, quoteId: string) {
  const { rows } = await sql.query<QuotePageRow>(
    `SELECT ${COLUMNS} FROM transfer_quotes WHERE merchant_id = $1 AND id = $2`,
    [merchantId, quoteId],
  );
  return rows[0] && quotePageItem(rows[0]);
}
