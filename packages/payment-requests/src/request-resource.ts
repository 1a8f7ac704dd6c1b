import type { ChainId, ChainsConfig, PaymentUriOf } from "@mp/core";
import type { Queryable } from "@mp/db";
import { formatAssetAmount, formatRequestAmount } from "./request-amount.ts";
import { requestFigures } from "./request-figures.ts";
import type { PaymentFlag, PaymentRequestStatus } from "./statuses.ts";

/** A payment_requests row as read (numerics as text, timestamps as Dates). */
export interface PaymentRequestRow {
  id: string;
  merchant_id: string;
  checkout_token: string;
  wallet_id: string;
  customer_id: string | null;
  currency: string;
  currency_decimals: number;
  amount: string;
  description: string | null;
  reference: string | null;
  metadata: Record<string, string>;
  success_url: string | null;
  cancel_url: string | null;
  status: PaymentRequestStatus;
  amount_paid: string;
  amount_pending: string;
  amount_missing: string;
  amount_excess: string;
  rate_locked_until: Date;
  quote_version: number;
  expires_at: Date;
  paid_at: Date | null;
  canceled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const PAYMENT_REQUEST_COLUMNS = `id, merchant_id, checkout_token, wallet_id, customer_id, currency,
  currency_decimals, amount::text AS amount, description, reference, metadata, success_url, cancel_url, status,
  amount_paid::text AS amount_paid, amount_pending::text AS amount_pending, amount_missing::text AS amount_missing,
  amount_excess::text AS amount_excess, rate_locked_until, quote_version, expires_at, paid_at, canceled_at,
  created_at, updated_at`;

export interface PaymentRequestOption {
  network: string;
  asset: string;
  address: string;
  contract_address: string | null;
  amount_due: string;
  amount_missing: string;
  rate: string | null;
  payment_uri: string;
}

export interface PaymentRequestPayment {
  deposit_id: string;
  network: string;
  asset: string;
  amount: string;
  status: "PENDING" | "CONFIRMED" | "REVERSED";
  confirmations: number;
  required_confirmations: number;
  tx_hash: string;
  counted: boolean;
  flag: PaymentFlag | null;
  seen_at: string;
}

/** A payment request as the API answers it and its events carry it. */
export interface PaymentRequestResource {
  id: string;
  status: PaymentRequestStatus;
  amount: string;
  currency: string;
  description: string | null;
  reference: string | null;
  customer_id: string | null;
  metadata: Record<string, string>;
  hosted_url: string;
  success_url: string | null;
  cancel_url: string | null;
  amount_paid: string;
  amount_pending: string;
  amount_missing: string;
  amount_excess: string;
  rate_locked_until: string;
  options: PaymentRequestOption[];
  payments: PaymentRequestPayment[];
  expires_at: string;
  paid_at: string | null;
  canceled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** What presenting a request needs besides its rows. */
export interface PresentSettings {
  /** Where payers reach this service (PUBLIC_URL): the hosted page's address starts with it. */
  publicUrl: string;
  /** The configured chains: an EVM payment URI names the chain id of the chain's network. */
  chains: ChainsConfig;
  /** Each option's payment URI, written by its chain's family (the service's registry). */
  paymentUri: PaymentUriOf;
}

interface OptionRow {
  request_id: string;
  chain: string;
  asset: string;
  decimals: number;
  contract_address: string | null;
  address: string;
  amount_due: string;
  usd_rate: string | null;
}

interface PaymentRow {
  request_id: string;
  deposit_id: string;
  deposit_status: PaymentRequestPayment["status"];
  flag: PaymentFlag | null;
  seen_at: Date;
  chain: string;
  asset: string;
  decimals: number;
  amount_raw: string;
  hold_status: string | null;
  tx_hash: string;
  block_height: string;
  required_confirmations: number;
  head_height: string | null;
}

const iso = (d: Date): string => d.toISOString();
const isoOrNull = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** The hosted page of a request. */
export function hostedUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/pay/${token}`;
}

/**
 * The status a read shows: a request still open or underpaid past its expiry is expired (the matcher
 * stores it and appends `payment_request.expired` at its next pass); nothing else depends on the clock.
 */
export function shownStatus(row: Pick<PaymentRequestRow, "status" | "expires_at">, now: Date): PaymentRequestStatus {
  if ((row.status === "open" || row.status === "underpaid") && now.getTime() >= row.expires_at.getTime()) {
    return "expired";
  }
  return row.status;
}

function confirmationsOf(p: PaymentRow): number {
  if (p.deposit_status === "REVERSED") return 0;
  if (p.deposit_status === "CONFIRMED") return p.required_confirmations;
  if (p.head_height === null) return 0;
  const seen = Number(p.head_height) - Number(p.block_height) + 1;
  return Math.min(p.required_confirmations, Math.max(0, seen));
}

async function rowsByRequest<Row extends { request_id: string }>(
  sql: Queryable,
  text: string,
  ids: string[],
): Promise<Map<string, Row[]>> {
  const byRequest = new Map<string, Row[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byRequest;
  for (const row of (await sql.query<Row>(text, [ids])).rows) byRequest.get(row.request_id)?.push(row);
  return byRequest;
}

/**
 * The requests of `rows` as the API answers them, with their options (each with its payment URI and
 * what is still missing in its asset) and payments (live confirmations from the indexers' heads), in
 * two statements for the whole page.
 */
export async function presentPaymentRequests(
  sql: Queryable,
  rows: readonly PaymentRequestRow[],
  settings: PresentSettings,
  now: Date = new Date(),
): Promise<PaymentRequestResource[]> {
  const ids = rows.map((r) => r.id);
  // Both reads at once: on the pool they travel together (the page's first render is three queries).
  const [options, payments] = await Promise.all([
    rowsByRequest<OptionRow>(
      sql,
      `SELECT request_id, chain, asset, decimals, contract_address, address, amount_due::text AS amount_due, usd_rate
       FROM payment_request_options WHERE request_id = ANY($1::uuid[]) ORDER BY request_id, position`,
      ids,
    ),
    rowsByRequest<PaymentRow>(
      sql,
      `SELECT p.request_id, p.deposit_id, p.deposit_status, p.flag, p.seen_at, d.chain, d.asset, d.decimals,
            d.amount_raw::text AS amount_raw, d.hold_status, d.tx_hash, d.block_height::text AS block_height,
            d.required_confirmations, c.head_height::text AS head_height
       FROM payment_request_payments p JOIN deposits d ON d.id = p.deposit_id
       LEFT JOIN chain_cursors c ON c.chain = d.chain
      WHERE p.request_id = ANY($1::uuid[]) ORDER BY p.seen_at, p.deposit_id`,
      ids,
    ),
  ]);
  return rows.map((row) => toResource(row, options.get(row.id) ?? [], payments.get(row.id) ?? [], settings, now));
}

function toResource(
  row: PaymentRequestRow,
  options: OptionRow[],
  payments: PaymentRow[],
  settings: PresentSettings,
  now: Date,
): PaymentRequestResource {
  const amount = (units: string) => formatRequestAmount(BigInt(units), row.currency, row.currency_decimals);
  // What each option still misses, from the payments as the matcher counted them.
  const figures = requestFigures({
    amount: BigInt(row.amount),
    expiresAt: row.expires_at,
    canceledAt: row.canceled_at,
    options: options.map((o) => ({ chain: o.chain, asset: o.asset, amountDue: BigInt(o.amount_due) })),
    payments: payments.map((p) => ({
      chain: p.chain,
      asset: p.asset,
      amountRaw: BigInt(p.amount_raw),
      status: p.deposit_status,
      held: p.flag === "held",
      seenAt: p.seen_at,
    })),
    now,
  });
  const missingOf = (o: OptionRow) => figures.optionMissing.get(`${o.chain}:${o.asset}`) ?? 0n;
  return {
    id: row.id,
    status: shownStatus(row, now),
    amount: amount(row.amount),
    currency: row.currency,
    description: row.description,
    reference: row.reference,
    customer_id: row.customer_id,
    metadata: row.metadata,
    hosted_url: hostedUrl(settings.publicUrl, row.checkout_token),
    success_url: row.success_url,
    cancel_url: row.cancel_url,
    amount_paid: amount(row.amount_paid),
    amount_pending: amount(row.amount_pending),
    amount_missing: amount(row.amount_missing),
    amount_excess: amount(row.amount_excess),
    rate_locked_until: iso(row.rate_locked_until),
    options: options.map((o) => ({
      network: o.chain,
      asset: o.asset,
      address: o.address,
      contract_address: o.contract_address,
      amount_due: formatAssetAmount(BigInt(o.amount_due), o.decimals),
      amount_missing: formatAssetAmount(missingOf(o), o.decimals),
      rate: o.usd_rate,
      // What to pay now: the missing part (all of it before anything was seen); the whole once paid.
      payment_uri: settings.paymentUri({
        chain: o.chain as ChainId,
        network: settings.chains[o.chain as ChainId]?.network ?? "mainnet",
        address: o.address,
        contractAddress: o.contract_address,
        decimals: o.decimals,
        amountRaw: missingOf(o) > 0n ? missingOf(o) : BigInt(o.amount_due),
      }),
    })),
    payments: payments.map((p) => ({
      deposit_id: p.deposit_id,
      network: p.chain,
      asset: p.asset,
      amount: formatAssetAmount(BigInt(p.amount_raw), p.decimals),
      status: p.deposit_status,
      confirmations: confirmationsOf(p),
      required_confirmations: p.required_confirmations,
      tx_hash: p.tx_hash,
      counted: p.deposit_status !== "REVERSED" && p.flag === null,
      flag: p.flag,
      seen_at: iso(p.seen_at),
    })),
    expires_at: iso(row.expires_at),
    paid_at: isoOrNull(row.paid_at),
    canceled_at: isoOrNull(row.canceled_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** One row as the API answers it (see `presentPaymentRequests`). */
export async function presentPaymentRequest(
  sql: Queryable,
  row: PaymentRequestRow,
  settings: PresentSettings,
  now: Date = new Date(),
): Promise<PaymentRequestResource> {
  const [resource] = await presentPaymentRequests(sql, [row], settings, now);
  if (!resource) throw new Error(`payment request ${row.id} could not be presented`);
  return resource;
}

/** The rows of `payment_requests` that `rest` (a WHERE clause and what follows it) selects. */
export async function selectPaymentRequestRows(
  sql: Queryable,
  rest: string,
  params: readonly unknown[],
): Promise<PaymentRequestRow[]> {
  const { rows } = await sql.query<PaymentRequestRow>(
    `SELECT ${PAYMENT_REQUEST_COLUMNS} FROM payment_requests ${rest}`,
    params as unknown[],
  );
  return rows;
}

/** Row `id` of this merchant (FOR UPDATE when `lock`), or undefined: another merchant's looks missing. */
export async function findPaymentRequestRow(
  sql: Queryable,
  merchantId: string,
  id: string,
  lock = false,
): Promise<PaymentRequestRow | undefined> {
  const rows = await selectPaymentRequestRows(sql, `WHERE merchant_id = $1 AND id = $2 ${lock ? "FOR UPDATE" : ""}`, [
    merchantId,
    id,
  ]);
  return rows[0];
}

/** One request of this merchant as the API answers it, or undefined. */
export async function findPaymentRequest(
  sql: Queryable,
  merchantId: string,
  id: string,
  settings: PresentSettings,
): Promise<PaymentRequestResource | undefined> {
  const row = await findPaymentRequestRow(sql, merchantId, id);
  return row && presentPaymentRequest(sql, row, settings);
}
