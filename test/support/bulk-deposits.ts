import type { Queryable } from "@mp/db";

/**
 * `count` USDC deposits of `amount` micro-USDC to the wallet's `chain` address, written in one
 * INSERT ... SELECT generate_series (the dashboard's tests and its 100,000-deposit bench), one second
 * apart going back from now, so the newest is number 1. Rows only: no ledger entries.
 */
export async function insertDeposits(
  sql: Queryable,
  walletId: string,
  options: { count: number; chain?: string; status?: "PENDING" | "CONFIRMED"; amountMicros?: bigint },
): Promise<void> {
  const status = options.status ?? "CONFIRMED";
  await sql.query(
    `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, to_address,
       tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations, status,
       usd_rate, amount_usd_micros, fee_usd_micros, net_amount_usd_micros, confirmed_at, created_at)
     SELECT gen_random_uuid(), w.merchant_id, w.id, d.id, w.customer_id, d.chain, 'USDC', d.address,
       '0x' || md5(w.id::text || n::text) || md5(n::text), 'log:0', n, '0xblock', 6, $3::bigint, 3, $4,
       '1', $3::bigint, 0, $3::bigint, CASE WHEN $4 = 'CONFIRMED' THEN now() END, now() - make_interval(secs => n)
       FROM wallets w JOIN destinations d ON d.wallet_id = w.id AND d.chain = $2
       CROSS JOIN generate_series(1, $5::int) AS n
      WHERE w.id = $1`,
    [walletId, options.chain ?? "BASE", (options.amountMicros ?? 1_000_000n).toString(), status, options.count],
  );
}
