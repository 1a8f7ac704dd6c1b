import { randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";

/** What a bank-funded USDC payout quote differs in between the tests that write one: amounts in micros. */
export interface BankQuoteTerms {
  /** USD the payer pays (also its USD value: USD is at $1). */
  sourceMicros: number;
  /** The fixed fee in USD (no bps fee), taken from the source. */
  feeMicros: number;
  /** USDC the payee receives. */
  destinationMicros: number;
  destinationAddress: string;
  rate: string;
  spreadBps: number;
}

/**
 * A quote of `customerId` at merchant `merchantId` written straight to transfer_quotes: USD by
 * bank transfer (ACH) for USDC on BASE, both at $1, valid 15 minutes; for tests of the tables and
 * pages under a transfer, which do not go through the quoting code. Its id.
 */
export async function insertBankQuote(
  sql: Queryable,
  owner: { merchantId: string; customerId: string },
  terms: BankQuoteTerms,
): Promise<string> {
  const id = randomUUID();
  await sql.query(
    `INSERT INTO transfer_quotes (id, merchant_id, customer_id, source_method, source_asset, source_network,
       source_decimals, source_amount, fee_amount, destination_kind, destination_asset, destination_network,
       destination_decimals, destination_amount, destination_address, rate_value, source_usd_rate,
       destination_usd_rate, spread_bps, fee_fixed_usd_micros, fee_bps, source_usd_micros, fee_usd_micros, expires_at)
     VALUES ($1, $2, $3, 'BANK_TRANSFER', 'USD', 'ACH', 6, $4, $5, 'CRYPTO_ADDRESS', 'USDC', 'BASE',
       6, $6, $7, $8, '1', '1', $9, $10, 0, $11, $12, now() + interval '15 minutes')`,
    // Each value once per column: a parameter standing in columns of two types is refused.
    [
      id,
      owner.merchantId,
      owner.customerId,
      terms.sourceMicros,
      terms.feeMicros,
      terms.destinationMicros,
      terms.destinationAddress,
      terms.rate,
      terms.spreadBps,
      terms.feeMicros,
      terms.sourceMicros,
      terms.feeMicros,
    ],
  );
  return id;
}
