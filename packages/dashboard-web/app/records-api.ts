/** The records pages' routes: a merchant's events log (GET /v1/events' filters) and the operator's audit log. */

import type { AuditLogAnswer, AuditQuery, EventQuery, EventResource, Page } from "./answers.ts";
import { call } from "./api.ts";
import { paramsOf } from "./merchant-api.ts";

export type LoggedEvent = EventResource;
export type AuditRow = AuditLogAnswer["items"][number];
export type { AuditQuery, EventQuery };

export const recordsApi = {
  events: (merchantId: string, page: number, query: EventQuery) =>
    call<Page<LoggedEvent>>(
      "GET",
      `/merchants/${encodeURIComponent(merchantId)}/events?${paramsOf({ limit: 50, page, ...query })}`,
    ),
  auditLog: (query: AuditQuery) =>
    call<AuditLogAnswer>("GET", `/operator/audit-log?${paramsOf({ limit: 50, ...query })}`),
};
