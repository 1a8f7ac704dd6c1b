import { randomUUID } from "node:crypto";
import { USD_DECIMALS, unitsToDecimal } from "@mp/core";
import type { Queryable } from "@mp/db";

/**
 * Bank returns (migrations/0270, docs/returns.md "Bank returns"): bank money that goes back to its
 * payer by bank, one per origin (a statement line finance returns, or a bank credit the merchant's
 * `return` policy takes back). Its id is the banking provider's payout key.
 */
export const BANK_RETURN_ORIGINS = ["suspense", "late_funding", "excess", "failed_payout"] as const;
export type BankReturnOrigin = (typeof BANK_RETURN_ORIGINS)[number];
export const BANK_RETURN_STATES = ["payable", "sending", "returned", "failed", "closed"] as const;
export type BankReturnState = (typeof BANK_RETURN_STATES)[number];

/** A bank pays whole cents: the micro-dollars of a bank return are a multiple of this. */
export const CENT_MICROS = 10_000n;

export interface BankReturn {
  id: string;
  origin: BankReturnOrigin;
  state: BankReturnState;
  /** Decimal USD, whole cents. */
  amount: string;
  statementLineId: string | null;
  bankDepositId: string | null;
  merchantId: string | null;
  transferId: string | null;
  reason: string | null;
  providerPayoutId: string | null;
  createdAt: Date;
  returnedAt: Date | null;
  closedAt: Date | null;
}

const RETURN_COLUMNS = `id, origin, state, owed_usd_micros::text AS owed, statement_line_id AS "statementLineId",
  bank_deposit_id AS "bankDepositId", merchant_id AS "merchantId", transfer_id AS "transferId", reason,
  provider_payout_id AS "providerPayoutId", created_at AS "createdAt", returned_at AS "returnedAt",
  closed_at AS "closedAt"`;

type ReturnRow = Omit<BankReturn, "amount"> & { owed: string };

function toBankReturn({ owed, ...row }: ReturnRow): BankReturn {
  return { ...row, amount: unitsToDecimal(BigInt(owed), USD_DECIMALS, 2) };
}

/** Why a return with no payer account on its statement line cannot be sent. */
export const NO_PAYER_ACCOUNT =
  "the bank credit names no payer account (no statement line, or a line without DbtrAcct / counterparty_account): send it back by hand";

/**
 * Records a bank return, once per origin: `sending` when its statement line names the payer's
 * account (the worker's pass asks the bank), else `payable` with the reason. Undefined when the
 * statement line has an open one (not closed) or the bank deposit has one already (the caller's
 * transaction then changes nothing). Its first payout key is its id.
 */
export async function openBankReturn(
  sql: Queryable,
  input: {
    origin: BankReturnOrigin;
    owedUsdMicros: bigint;
    statementLineId: string | null;
    bankDepositId?: string | undefined;
    merchantId?: string | undefined;
    transferId?: string | undefined;
  },
): Promise<BankReturn | undefined> {
  const line = await sql.query<{ payer: boolean }>(
    "SELECT payer_ciphertext IS NOT NULL AS payer FROM bank_statement_lines WHERE id = $1",
    [input.statementLineId],
  );
  const payerKnown = line.rows[0]?.payer === true;
  const inserted = await sql.query<ReturnRow>(
    `INSERT INTO bank_returns (id, payout_key, origin, statement_line_id, bank_deposit_id, merchant_id, transfer_id,
       owed_usd_micros, state, reason, requested_at)
     VALUES ($1, $1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $8 = 'sending' THEN now() END)
     ON CONFLICT DO NOTHING RETURNING ${RETURN_COLUMNS}`,
    [
      randomUUID(),
      input.origin,
      input.statementLineId,
      input.bankDepositId ?? null,
      input.merchantId ?? null,
      input.transferId ?? null,
      input.owedUsdMicros.toString(),
      payerKnown ? "sending" : "payable",
      payerKnown ? null : NO_PAYER_ACCOUNT,
    ],
  );
  const row = inserted.rows[0];
  return row && toBankReturn(row);
}

/** The bank returns, newest first (`payments bank returns`); `state` filters. */
export async function listBankReturns(
  sql: Queryable,
  options: { state?: BankReturnState | undefined; limit?: number } = {},
): Promise<BankReturn[]> {
  const { rows } = await sql.query<ReturnRow>(
    `SELECT ${RETURN_COLUMNS} FROM bank_returns WHERE $1::text IS NULL OR state = $1
      ORDER BY created_at DESC, id LIMIT $2`,
    [options.state ?? null, options.limit ?? 100],
  );
  return rows.map(toBankReturn);
}

/** One bank return by its id. */
export async function bankReturnById(sql: Queryable, id: string): Promise<BankReturn | undefined> {
  const { rows } = await sql.query<ReturnRow>(`SELECT ${RETURN_COLUMNS} FROM bank_returns WHERE id = $1`, [id]);
  const row = rows[0];
  return row && toBankReturn(row);
}

/** The bank return of a statement line, if any: its open one, else the last one closed. */
export async function bankReturnOfLine(sql: Queryable, lineId: string): Promise<BankReturn | undefined> {
  const { rows } = await sql.query<ReturnRow>(
    `SELECT ${RETURN_COLUMNS} FROM bank_returns WHERE statement_line_id = $1
      ORDER BY state = 'closed', created_at DESC, id LIMIT 1`,
    [lineId],
  );
  const row = rows[0];
  return row && toBankReturn(row);
}

/** A bank return as `payments bank returns --json` and `bank return --json` print it. */
export function bankReturnJson(r: BankReturn) {
  return {
    id: r.id,
    origin: r.origin,
    state: r.state,
    amount: r.amount,
    currency: "USD",
    statement_line_id: r.statementLineId,
    bank_deposit_id: r.bankDepositId,
    merchant_id: r.merchantId,
    transfer_id: r.transferId,
    reason: r.reason,
    provider_payout_id: r.providerPayoutId,
    created_at: r.createdAt.toISOString(),
    returned_at: r.returnedAt?.toISOString() ?? null,
    closed_at: r.closedAt?.toISOString() ?? null,
  };
}
