import { formatUsd } from "@mp/core";
import { insertReturning, type Queryable } from "@mp/db";
import { defineListQuery } from "../shared/list-page.ts";
import { type RowOf, resourceTable } from "../shared/resource-row.ts";
import type { BankDepositResource } from "./bank-deposit-schemas.ts";

/** As read: `amount` is the stored micro-dollars (`amount_usd_micros`), formatted by toResource. */
type BankDepositRow = RowOf<BankDepositResource, "credited_at" | "created_at">;

// The table holds USD only (amount_usd_micros): the currency is stated, not stored.
const BANK_DEPOSITS = resourceTable<BankDepositRow>({
  from: "bank_deposits",
  columns: `id, virtual_account_id, customer_id, amount_usd_micros AS amount, 'USD'::text AS currency, reference,
    status, credited_at, created_at`,
});

function toResource(row: BankDepositRow): BankDepositResource {
  return { ...BANK_DEPOSITS.toResource(row), amount: formatUsd(BigInt(row.amount)) };
}

export async function insertBankDeposit(
  sql: Queryable,
  input: {
    id: string;
    merchantId: string;
    virtualAccountId: string;
    customerId: string;
    amountUsdMicros: bigint;
    reference: string | null;
    ledgerEntryId: string;
  },
): Promise<BankDepositResource> {
  const row = await insertReturning<BankDepositRow>(
    sql,
    `INSERT INTO bank_deposits (id, merchant_id, virtual_account_id, customer_id, amount_usd_micros, reference, ledger_entry_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${BANK_DEPOSITS.columns}`,
    [
      input.id,
      input.merchantId,
      input.virtualAccountId,
      input.customerId,
      input.amountUsdMicros.toString(),
      input.reference,
      input.ledgerEntryId,
    ],
  );
  return toResource(row);
}

/** The deposits received on a virtual account, newest first: its route checked the account is the merchant's. */
export const listBankDeposits = defineListQuery(
  { ...BANK_DEPOSITS, toItems: (rows: BankDepositRow[]) => rows.map(toResource) },
  "virtual_account_id",
);
