import { iso, unitsToDecimal } from "@mp/core";
import { insertReturning, type Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import type { PricedQuote } from "./quote-pricing.ts";
import { type BankMask, bankMaskOf, type Money, type QuoteResource, type UsBankAccount } from "./resources.ts";
import type { SourceMethod } from "./statuses.ts";
import type { Beneficiary } from "./travel-rule.ts";

/** A quote as stored (migrations/0120_transfer_quotes.sql). */
export interface QuoteRow {
  id: string;
  merchant_id: string;
  customer_id: string;
  source_method: SourceMethod;
  source_asset: string;
  source_network: string;
  source_decimals: number;
  source_amount: string;
  fee_amount: string;
  destination_kind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT";
  destination_asset: string;
  destination_network: string;
  destination_decimals: number;
  destination_amount: string;
  destination_address: string | null;
  destination_bank_mask: string | null;
  /** Travel rule data sealed on the quote (migration 0210): the beneficiary is readable by operators only. */
  beneficiary_on_file: boolean;
  rate_value: string;
  source_usd_micros: string;
  fee_usd_micros: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

export const QUOTE_COLUMNS = `id, merchant_id, customer_id, source_method, source_asset, source_network, source_decimals,
  source_amount::text AS source_amount, fee_amount::text AS fee_amount, destination_kind, destination_asset,
  destination_network, destination_decimals, destination_amount::text AS destination_amount, destination_address,
  destination_bank_mask, beneficiary_ciphertext IS NOT NULL AS beneficiary_on_file, rate_value, source_usd_micros::text AS source_usd_micros,
  fee_usd_micros::text AS fee_usd_micros, expires_at, used_at, created_at`;

/**
 * An amount as spec 2.9's Money object: fiat (USD, held in micro-dollars) with at least its two
 * cent digits, crypto with all the digits it has.
 */
export function toMoney(asset: string, network: string, units: bigint | string, decimals: number): Money {
  const minDigits = asset === "USD" ? 2 : 0;
  return { asset, currency: asset, network, value: unitsToDecimal(BigInt(units), decimals, minDigits) };
}

export function toQuoteResource(row: QuoteRow): QuoteResource {
  const bank = row.destination_bank_mask === null ? null : (JSON.parse(row.destination_bank_mask) as BankMask);
  return {
    id: row.id,
    customer_id: row.customer_id,
    source: { method: row.source_method, asset: row.source_asset, network: row.source_network },
    destination: {
      type: row.destination_kind,
      asset: row.destination_asset,
      network: row.destination_network,
      address: row.destination_address,
      bank_account: bank,
      beneficiary_on_file: row.beneficiary_on_file,
    },
    source_amount: toMoney(row.source_asset, row.source_network, row.source_amount, row.source_decimals),
    fee: toMoney(row.source_asset, row.source_network, row.fee_amount, row.source_decimals),
    destination_amount: toMoney(
      row.destination_asset,
      row.destination_network,
      row.destination_amount,
      row.destination_decimals,
    ),
    rate: { base_currency: row.source_asset, quote_currency: row.destination_asset, value: row.rate_value },
    expires_at: iso(row.expires_at),
    used: row.used_at !== null,
    created_at: iso(row.created_at),
  };
}

export interface NewQuote {
  id: string;
  merchantId: string;
  customerId: string;
  source: { method: SourceMethod; asset: string; network: string; decimals: number; usdRate: string };
  destination: {
    kind: "CRYPTO_ADDRESS" | "US_BANK_ACCOUNT";
    asset: string;
    network: string;
    decimals: number;
    usdRate: string;
    address: string | null;
    bankAccount: UsBankAccount | null;
    /** Travel rule data, sealed: given only at or above the threshold (travel-rule.ts). */
    beneficiary: Beneficiary | null;
  };
  priced: PricedQuote;
  spreadBps: number;
  fee: { fixedUsdMicros: bigint; bps: number };
  ttlSeconds: number;
}

export async function insertQuote(sql: Queryable, keyring: EncryptionKeyring, quote: NewQuote): Promise<QuoteRow> {
  const bank = quote.destination.bankAccount;
  // The full account details are sealed, bound to the quote's id; only the mask is readable.
  const sealed = bank ? keyring.sealJson(bank, quote.id) : null;
  const beneficiary = quote.destination.beneficiary ? keyring.sealJson(quote.destination.beneficiary, quote.id) : null;
  const mask: BankMask | null = bank ? bankMaskOf(bank) : null;
  return insertReturning<QuoteRow>(
    sql,
    `INSERT INTO transfer_quotes (id, merchant_id, customer_id, source_method, source_asset, source_network,
       source_decimals, source_amount, fee_amount, destination_kind, destination_asset, destination_network,
       destination_decimals, destination_amount, destination_address, destination_bank_ciphertext,
       destination_bank_key_id, destination_bank_mask, rate_value, source_usd_rate, destination_usd_rate, spread_bps,
       fee_fixed_usd_micros, fee_bps, source_usd_micros, fee_usd_micros, destination_usd_micros,
       beneficiary_ciphertext, beneficiary_key_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
       $23, $24, $25, $26, $28, $29, $30, now() + make_interval(secs => $27))
     RETURNING ${QUOTE_COLUMNS}`,
    [
      quote.id,
      quote.merchantId,
      quote.customerId,
      quote.source.method,
      quote.source.asset,
      quote.source.network,
      quote.source.decimals,
      quote.priced.sourceAmount.toString(),
      quote.priced.feeAmount.toString(),
      quote.destination.kind,
      quote.destination.asset,
      quote.destination.network,
      quote.destination.decimals,
      quote.priced.destinationAmount.toString(),
      quote.destination.address,
      sealed?.ciphertext ?? null,
      sealed?.keyId ?? null,
      mask ? JSON.stringify(mask) : null,
      quote.priced.rateValue,
      quote.source.usdRate,
      quote.destination.usdRate,
      quote.spreadBps,
      quote.fee.fixedUsdMicros.toString(),
      quote.fee.bps,
      quote.priced.sourceUsdMicros.toString(),
      quote.priced.feeUsdMicros.toString(),
      quote.ttlSeconds,
      quote.priced.destinationUsdMicros.toString(),
      beneficiary?.ciphertext ?? null,
      beneficiary?.keyId ?? null,
    ],
  );
}

/**
 * Quote `id` of this merchant (locked for the transaction with `lock`), or undefined: another
 * merchant's quote looks exactly like a missing one.
 */
export async function findQuote(
  sql: Queryable,
  merchantId: string,
  id: string,
  lock?: "FOR UPDATE",
): Promise<QuoteRow | undefined> {
  const result = await sql.query<QuoteRow>(
    `SELECT ${QUOTE_COLUMNS} FROM transfer_quotes WHERE merchant_id = $1 AND id = $2 ${lock ?? ""}`,
    [merchantId, id],
  );
  return result.rows[0];
}

/** The tables of per-merchant fee schedules: the transfers', and the liquidation addresses' (migration 0260). */
export type FeeOverrides = "transfer_fee_overrides" | "liquidation_fee_overrides";

/** The merchant's fee schedule: its row in `overrides`, else the configured default. */
export async function feeScheduleOf(
  sql: Queryable,
  merchantId: string,
  fallback: { fixedUsdMicros: bigint; bps: number },
  overrides: FeeOverrides = "transfer_fee_overrides",
): Promise<{ fixedUsdMicros: bigint; bps: number }> {
  const result = await sql.query<{ fixed_usd_micros: string; basis_points: number }>(
    `SELECT fixed_usd_micros::text AS fixed_usd_micros, basis_points FROM ${overrides} WHERE merchant_id = $1`,
    [merchantId],
  );
  const row = result.rows[0];
  return row ? { fixedUsdMicros: BigInt(row.fixed_usd_micros), bps: row.basis_points } : fallback;
}
