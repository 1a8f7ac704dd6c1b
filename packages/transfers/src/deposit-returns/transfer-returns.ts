import { iso } from "@mp/core";
import type { BankReturnState } from "../bank-returns/bank-return-store.ts";
import { toMoney } from "../quote-store.ts";
import type { TransferReturnResource } from "../resources.ts";
import type { DepositReturnOrigin, DepositReturnState } from "./send-deposit-return.ts";

/** One return as the transfer's read selects it (TRANSFER_RETURNS_SQL: json, so numbers as text). */
export interface StoredTransferReturn {
  /** The deposit's id, or the bank deposit's for a bank return. */
  deposit_id: string;
  origin: DepositReturnOrigin;
  state: DepositReturnState | BankReturnState;
  /** A bank return (bank-returns/): paid back by bank, to the payer's account (sealed). */
  bank: boolean;
  chain: string;
  asset: string;
  decimals: number;
  amount_raw: string | null;
  fee_raw: string;
  to_address: string | null;
  reason: string | null;
  tx_hash: string | null;
  created_at: string;
  returned_at: string | null;
}

/**
 * SQL (a column of a read of `transfers t`): the returns of the payments the transfer's intent
 * received (funding_intent_credits -> deposit_returns; the tx hash is that of the send's landed
 * attempt) and its bank returns (bank_returns of the transfer: a bank credit its intent took, paid
 * back by bank, in USD on ACH, no fee), oldest first, as a json array.
 */
export const TRANSFER_RETURNS_SQL = `(SELECT coalesce(json_agg(x.j ORDER BY x.created_at, x.id), '[]'::json) FROM (
   SELECT r.created_at, r.deposit_id AS id, json_build_object(
    'deposit_id', r.deposit_id, 'origin', r.origin, 'state', r.state, 'chain', r.chain, 'asset', r.asset,
    'decimals', d.decimals, 'amount_raw', r.amount_raw::text, 'fee_raw', r.fee_raw::text, 'to_address', r.to_address,
    'reason', r.reason, 'tx_hash', a.tx_hash, 'created_at', r.created_at, 'returned_at', r.returned_at, 'bank', false) AS j
   FROM funding_intents i
   JOIN funding_intent_credits c ON c.intent_id = i.id
   JOIN deposit_returns r ON r.deposit_id = c.deposit_id
   JOIN deposits d ON d.id = r.deposit_id
   LEFT JOIN treasury_sends s ON s.idempotency_key = r.send_key
   LEFT JOIN treasury_attempts a ON a.id = s.landed_attempt_id
  WHERE i.transfer_id = t.id
  UNION ALL
   SELECT b.created_at, b.bank_deposit_id, json_build_object(
    'deposit_id', b.bank_deposit_id, 'origin', b.origin, 'state', b.state, 'chain', 'ACH', 'asset', 'USD',
    'decimals', 6, 'amount_raw', b.owed_usd_micros::text, 'fee_raw', '0', 'to_address', NULL,
    'reason', b.reason, 'tx_hash', NULL, 'created_at', b.created_at, 'returned_at', b.returned_at, 'bank', true)
   FROM bank_returns b
  WHERE b.transfer_id = t.id AND b.origin <> 'suspense') x)`;

export function toTransferReturn(row: StoredTransferReturn): TransferReturnResource {
  return {
    deposit_id: row.deposit_id,
    origin: row.origin,
    state: row.state,
    amount: row.amount_raw === null ? null : toMoney(row.asset, row.chain, row.amount_raw, row.decimals),
    network_fee: toMoney(row.asset, row.chain, row.fee_raw, row.decimals),
    // A bank return's account stays sealed: the resource says it goes back by bank, not where.
    destination: row.bank
      ? { type: "BANK_ACCOUNT", network: row.chain, address: null }
      : { type: "CRYPTO_ADDRESS", network: row.chain, address: row.to_address },
    reason: row.reason,
    tx_hash: row.tx_hash,
    created_at: iso(row.created_at),
    returned_at: row.returned_at === null ? null : iso(row.returned_at),
  };
}
