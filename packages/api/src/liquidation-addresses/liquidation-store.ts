import type { Queryable } from "@mp/db";
import {
  type DrainResource,
  LIQUIDATION_ADDRESS_COLUMNS,
  type LiquidationAddressResource,
  type LiquidationAddressRow,
  readDrains,
  toLiquidationAddressResource,
} from "@mp/liquidation";
import type { Page } from "../http/envelope.ts";
import type { Pagination } from "../http/pagination.ts";
import { listPage } from "../shared/list-page.ts";
import { SqlFilters } from "../shared/sql-filters.ts";

export interface LiquidationAddressFilters {
  status?: string | undefined;
  customer_id?: string | undefined;
  network?: string | undefined;
  reference?: string | undefined;
  created_from?: string | undefined;
  created_to?: string | undefined;
}

/** A page of the merchant's liquidation addresses, newest first. */
export function listLiquidationAddresses(
  sql: Queryable,
  merchantId: string,
  filters: LiquidationAddressFilters & Pagination,
): Promise<Page<LiquidationAddressResource>> {
  const where = new SqlFilters()
    .add("merchant_id = $?", merchantId)
    .add("chain = $?", filters.network)
    .equal(filters, "status", "customer_id", "reference")
    .createdWithin(filters);
  return listPage<LiquidationAddressRow, LiquidationAddressResource>(
    sql,
    {
      from: "liquidation_addresses",
      columns: LIQUIDATION_ADDRESS_COLUMNS,
      toItems: (rows) => rows.map(toLiquidationAddressResource),
    },
    where,
    filters,
  );
}

/** A page of one address's drains, newest first (the caller checked the address is the merchant's). */
export function listDrains(
  sql: Queryable,
  addressId: string,
  filters: { state?: string | undefined } & Pagination,
): Promise<Page<DrainResource>> {
  const where = new SqlFilters().add("liquidation_address_id = $?", addressId).add("state = $?", filters.state);
  return listPage<{ id: string }, DrainResource>(
    sql,
    {
      from: "liquidation_drains",
      columns: "id",
      toItems: (rows, q) =>
        readDrains(
          q,
          rows.map((r) => r.id),
        ),
    },
    where,
    filters,
  );
}
