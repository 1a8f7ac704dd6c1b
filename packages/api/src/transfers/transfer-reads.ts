import {
  SEEN_STATUS,
  SEEN_TRANSFER_COLUMNS,
  TRANSFER_FROM,
  type TransferResource,
  type TransferRow,
  type TransferStatus,
  toTransferResource,
} from "@mp/transfers";
import { defineListQuery, type ResourceTable } from "../shared/list-page.ts";

const TRANSFERS: ResourceTable<TransferRow, TransferResource> = {
  from: TRANSFER_FROM,
  columns: SEEN_TRANSFER_COLUMNS,
  orderBy: "t.created_at DESC, t.id DESC",
  toItems: (rows) => rows.map(toTransferResource),
};

export interface TransferFilters {
  status?: TransferStatus | undefined;
  customer_id?: string | undefined;
  created_from?: string | undefined;
  created_to?: string | undefined;
}

/** GET /v1/transfers: a page of the merchant's transfers as reads show them (an unfunded one past expiry EXPIRED). */
export const listTransfers = defineListQuery(TRANSFERS, "t.merchant_id", (where, filters: TransferFilters) =>
  where
    .add(`${SEEN_STATUS} = $?`, filters.status)
    .add("t.customer_id = $?", filters.customer_id)
    .add("t.created_at >= $?", filters.created_from)
    .add("t.created_at <= $?", filters.created_to),
);
