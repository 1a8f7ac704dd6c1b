/** The records pages' routes: a merchant's events log (GET /v1/events' filters) and the operator's audit log. */

import type { AuditLogAnswer, EventResource, Page } from "./answers.ts";
import { call } from "./api.ts";
import { paramsOf } from "./merchant-api.ts";

export type LoggedEvent = EventResource;
export type AuditRow = AuditLogAnswer["items"][number];

/** GET /v1/events' own filters. */
export interface EventQuery {
  type?: string;
  object_id?: string;
  created_from?: string;
  created_to?: string;
  delivery_failed?: "true" | "false" | "";
}

/** The audit log route's filters (packages/dashboard/src/operator-audit-routes.ts). */
export interface AuditQuery {
  actor?: string;
  action?: string;
  object_type?: string;
  object_id?: string;
  merchant_id?: string;
  created_from?: string;
  created_to?: string;
  before?: string;
}

export const recordsApi = {
  events: (merchantId: string, page: number, query: EventQuery) =>
    call<Page<LoggedEvent>>(
      "GET",
      `/merchants/${encodeURIComponent(merchantId)}/events?${paramsOf({ limit: 50, page, ...query })}`,
    ),
  auditLog: (query: AuditQuery) =>
    call<AuditLogAnswer>("GET", `/operator/audit-log?${paramsOf({ limit: 50, ...query })}`),
};
