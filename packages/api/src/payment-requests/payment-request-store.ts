import type { Queryable } from "@mp/db";
import {
  PAYMENT_REQUEST_COLUMNS,
  type PaymentRequestResource,
  type PaymentRequestRow,
  type PresentSettings,
  presentPaymentRequests,
} from "@mp/payment-requests";
import type { AppDeps } from "../deps.ts";
import type { Page } from "../http/envelope.ts";
import type { Pagination } from "../http/pagination.ts";
import { listPage, type ResourceTable } from "../shared/list-page.ts";
import { SqlFilters } from "../shared/sql-filters.ts";

/** How requests are presented in this deployment: its public address and chains. */
export function presentSettings(deps: Pick<AppDeps, "paymentRequests" | "chains" | "paymentUri">): PresentSettings {
  return { publicUrl: deps.paymentRequests.publicUrl, chains: deps.chains, paymentUri: deps.paymentUri };
}

function requestsTable(settings: PresentSettings): ResourceTable<PaymentRequestRow, PaymentRequestResource> {
  return {
    from: "payment_requests",
    columns: PAYMENT_REQUEST_COLUMNS,
    toItems: (rows, sql) => presentPaymentRequests(sql, rows, settings),
  };
}

export interface PaymentRequestFilters {
  status?: string | undefined;
  reference?: string | undefined;
  customer_id?: string | undefined;
  created_from?: string | undefined;
  created_to?: string | undefined;
}

/**
 * A page of the merchant's requests, newest first. The status filter reads the stored status, so an
 * open request past its expiry that the matcher has not marked yet is still found as open (shown expired).
 */
export function listPaymentRequests(
  sql: Queryable,
  merchantId: string,
  filters: PaymentRequestFilters & Pagination,
  settings: PresentSettings,
): Promise<Page<PaymentRequestResource>> {
  const where = new SqlFilters()
    .add("merchant_id = $?", merchantId)
    .equal(filters, "status", "reference", "customer_id")
    .createdWithin(filters);
  return listPage(sql, requestsTable(settings), where, filters);
}
