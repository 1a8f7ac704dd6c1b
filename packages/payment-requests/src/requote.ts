import type { Database, Queryable } from "@mp/db";
import { depositsOfWallet } from "@mp/events";
import type { RateProvider } from "@mp/providers";
import { fetchUsdRates, type OptionAsset, priceOptions, rateLockEnd } from "./rate-lock.ts";
import { type PaymentRequestRow, selectPaymentRequestRows } from "./request-resource.ts";

/**
 * A request whose quote may be renewed now: open, its lock lapsed, not expired, and nothing ever seen
 * on its wallet (a payment seen freezes the quote, even before the matcher counted it).
 */
function lapsed(row: PaymentRequestRow, now: Date): boolean {
  return (
    row.status === "open" &&
    row.rate_locked_until.getTime() <= now.getTime() &&
    row.expires_at.getTime() > now.getTime()
  );
}

async function nothingSeen(sql: Queryable, walletId: string): Promise<boolean> {
  const { rows } = await sql.query(
    `SELECT 1 FROM deposits WHERE ${depositsOfWallet("$1")} AND status <> 'REVERSED' LIMIT 1`,
    [walletId],
  );
  return rows.length === 0;
}

/**
 * Re-quotes a request whose rate lock lapsed while nothing was paid (the payer is looking at it: the
 * hosted page asks): the USD rates are fetched outside any transaction, then under the row lock the
 * conditions are checked again and every option repriced at once, the lock renewed for `lockSeconds`
 * (never past the expiry) and quote_version moved on. An expired request is never re-quoted: its
 * rate is refused. Returns whether it re-quoted; a rate that cannot be had throws (retried at the
 * page's next look).
 */
export async function requoteIfLapsed(
  db: Database,
  rates: RateProvider,
  row: PaymentRequestRow,
  lockSeconds: number,
  now: () => Date = () => new Date(),
): Promise<boolean> {
  if (!lapsed(row, now())) return false;
  const options = await db.query<OptionAsset & { position: number }>(
    `SELECT position, chain, asset, decimals, contract_address AS "contractAddress", destination_id AS "destinationId", address
       FROM payment_request_options WHERE request_id = $1 ORDER BY position`,
    [row.id],
  );
  const usdRates = await fetchUsdRates(
    rates,
    row.currency,
    options.rows.map((o) => o.asset),
  );
  return db.tx(async (sql) => {
    const [current] = await selectPaymentRequestRows(sql, "WHERE id = $1 FOR UPDATE", [row.id]);
    const at = now();
    if (!current || !lapsed(current, at) || !(await nothingSeen(sql, current.wallet_id))) return false;
    const priced = priceOptions(
      { currency: current.currency, currencyDecimals: current.currency_decimals, amount: BigInt(current.amount) },
      options.rows,
      usdRates,
    );
    await sql.query(
      `UPDATE payment_request_options o SET amount_due = u.due, usd_rate = u.rate
         FROM unnest($2::text[], $3::text[], $4::numeric[], $5::text[]) AS u(chain, asset, due, rate)
        WHERE o.request_id = $1 AND o.chain = u.chain AND o.asset = u.asset`,
      [
        current.id,
        priced.map((p) => p.chain),
        priced.map((p) => p.asset),
        priced.map((p) => p.amountDue.toString()),
        priced.map((p) => p.usdRate),
      ],
    );
    await sql.query(
      `UPDATE payment_requests SET rate_locked_until = $2, quote_version = quote_version + 1, updated_at = now()
        WHERE id = $1`,
      [current.id, rateLockEnd(at, lockSeconds, current.expires_at)],
    );
    return true;
  });
}
