import { type ChainId, feeMicros, type Logger, toUsdMicros, USD_STABLECOINS } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { postDepositCredit } from "@mp/ledger";
import type { RateProvider } from "@mp/providers";

export interface ConfirmOptions {
  db: Database;
  chain: ChainId;
  head: number;
  rates: RateProvider;
  logger: Logger;
  failpoint: (name: string) => void | Promise<void>;
  /** Deposits looked at per call; the rest wait for the next iteration. */
  limit?: number;
}

interface UsdRate {
  rate: string;
  at: Date;
}

/** Largest number of deposits confirmed per iteration (the loop continues at once while there is work). */
const DEFAULT_LIMIT = 5_000;

/**
 * Confirms every PENDING deposit of the chain with enough confirmations at `head`
 * (head - block_height + 1 >= required), in transactions of up to CHUNK deposits: lock each row, re-check it is
 * still PENDING, value it in USD (stablecoins 1:1, other assets at the provider's rate now), take
 * the merchant's fee, post the credit and mark it CONFIRMED with the credit entry. The row lock and
 * the ledger's per-deposit idempotency make the credit exactly-once whatever crashes or repeats.
 * A deposit whose rate cannot be had stays PENDING for the next iteration. Returns how many it confirmed.
 */
export async function confirmDeposits(options: ConfirmOptions): Promise<number> {
  const { db, chain, head, logger } = options;
  const { rows } = await db.query<{ id: string; asset: string }>(
    `SELECT id, asset FROM deposits
      WHERE chain = $1 AND status = 'PENDING' AND block_height <= $2::bigint + 1 - required_confirmations
      ORDER BY block_height, id LIMIT $3`,
    [chain, head, options.limit ?? DEFAULT_LIMIT],
  );
  const rates = new Map<string, UsdRate | null>();
  const rateOf = async (asset: string): Promise<UsdRate | null> => {
    const known = rates.get(asset);
    if (known !== undefined) return known;
    let found: UsdRate | null;
    if (USD_STABLECOINS.has(asset)) {
      found = { rate: "1", at: new Date() };
    } else {
      try {
        found = { rate: (await options.rates.rateFor(asset)).rate, at: new Date() };
      } catch (error) {
        logger.warn({ chain, asset, err: String(error) }, "no USD rate: deposits of this asset stay pending");
        found = null;
      }
    }
    rates.set(asset, found);
    return found;
  };

  const ready: Array<{ id: string; rate: UsdRate }> = [];
  for (const row of rows) {
    const rate = await rateOf(row.asset);
    if (rate) ready.push({ id: row.id, rate });
  }
  // Deposits are confirmed in transactions of CHUNK: one COMMIT (and one WAL flush) per chunk rather
  // than per deposit is what lets a catch-up credit thousands of deposits quickly. Any failure rolls
  // back the whole chunk (nothing half-credited) and the iteration fails and is retried.
  let confirmed = 0;
  for (let i = 0; i < ready.length; i += CHUNK) {
    const chunk = ready.slice(i, i + CHUNK);
    confirmed += await options.db.tx(async (client) => {
      let n = 0;
      for (const { id, rate } of chunk) if (await confirmOne(client, options, id, rate)) n++;
      return n;
    });
  }
  return confirmed;
}

/** Deposits confirmed per transaction. */
const CHUNK = 100;

async function confirmOne(
  client: Queryable,
  options: ConfirmOptions,
  depositId: string,
  rate: UsdRate,
): Promise<boolean> {
  const { rows } = await client.query<{
    merchant_id: string;
    status: string;
    decimals: number;
    amount_raw: string;
    fee_bps: number;
    fee_fixed_micros: string;
  }>(
    `SELECT d.merchant_id, d.status, d.decimals, d.amount_raw::text, m.fee_bps, m.fee_fixed_micros::text
         FROM deposits d JOIN merchants m ON m.id = d.merchant_id
        WHERE d.id = $1 FOR UPDATE OF d`,
    [depositId],
  );
  const row = rows[0];
  if (row?.status !== "PENDING") return false;
  const amount = toUsdMicros(BigInt(row.amount_raw), row.decimals, rate.rate);
  const fee = feeMicros(amount, row.fee_bps, BigInt(row.fee_fixed_micros));
  const { entryId } = await postDepositCredit(client, {
    depositId,
    merchantId: row.merchant_id,
    amountUsdMicros: amount,
    feeUsdMicros: fee,
  });
  await options.failpoint("after-credit");
  await client.query(
    `UPDATE deposits SET status = 'CONFIRMED', usd_rate = $2, usd_rate_at = $3, amount_usd_micros = $4,
              fee_usd_micros = $5, net_amount_usd_micros = $6, credit_entry_id = $7, confirmed_at = now(),
              updated_at = now()
        WHERE id = $1`,
    [depositId, rate.rate, rate.at, amount.toString(), fee.toString(), (amount - fee).toString(), entryId],
  );
  return true;
}
