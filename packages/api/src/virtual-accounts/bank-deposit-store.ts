import { formatUsd } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { Page } from "../http/envelope.ts";
import type { Pagination } from "../http/pagination.ts";
import { listPage, type ResourceTable } from "../shared/list-page.ts";
import type { RowOf } from "../shared/resource-row.ts";
import { iso, SqlFilters } from "../shared/sql-filters.ts";
import type { BankDepositResource } from "./bank-deposit-schemas.ts";

type BankDepositRow = RowOf<Omit<BankDepositResource, "amount" | "currency">, "credited_at" | "created_at"> & {
  amount_usd_micros: string;
};

const COLUMNS = "id, virtual_account_id, customer_id, amount_usd_micros, reference, status, credited_at, created_at";

function toResource(row: BankDepositRow): BankDepositResource {
  return {
    id: row.id,
    virtual_account_id: row.virtual_account_id,
    customer_id: row.customer_id,
    amount: formatUsd(BigInt(row.amount_usd_micros)),
    currency: "USD",
    reference: row.reference,
    status: row.status,
    credited_at: iso(row.credited_at),
    created_at: iso(row.created_at),
  };
}

const BANK_DEPOSITS: ResourceTable<BankDepositRow, BankDepositResource> = {
  from: "bank_deposits",
  columns: COLUMNS,
  toItems: (rows) => rows.map(toResource),
};

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
  const result = await sql.query<BankDepositRow>(
    `INSERT INTO bank_deposits (id, merchant_id, virtual_account_id, customer_id, amount_usd_micros, reference, ledger_entry_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
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
  const row = result.rows[0];
  if (!row) throw new Error("INSERT returned no row");
  return toResource(row);
}

export function listBankDeposits(
  sql: Queryable,
  virtualAccountId: string,
  page: Pagination,
): Promise<Page<BankDepositResource>> {
  return listPage(sql, BANK_DEPOSITS, new SqlFilters().add("virtual_account_id = $?", virtualAccountId), page);
}
