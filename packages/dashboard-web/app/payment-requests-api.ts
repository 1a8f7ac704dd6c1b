/** The payment requests pages' JSON routes: /v1/payment-requests of one merchant, as the session may see them. */
import type { PaymentRequestResource } from "./answers.ts";
import { call, type Role } from "./api.ts";
import type { Page } from "./merchant-api.ts";

export type PaymentRequest = PaymentRequestResource;

const m = (merchantId: string, path: string) => `/merchants/${encodeURIComponent(merchantId)}${path}`;

export const paymentRequestsApi = {
  list: (id: string, page: number) =>
    call<Page<PaymentRequest>>("GET", m(id, `/payment-requests?limit=50&page=${page}`)),
  get: (id: string, requestId: string) =>
    call<PaymentRequest>("GET", m(id, `/payment-requests/${encodeURIComponent(requestId)}`)),
  create: (id: string, body: { amount: string; currency: string; description?: string; reference?: string }) =>
    call<PaymentRequest>("POST", m(id, "/payment-requests"), body),
  cancel: (id: string, requestId: string) =>
    call<PaymentRequest>("POST", m(id, `/payment-requests/${encodeURIComponent(requestId)}/cancel`)),
};

/** Who may create and cancel (payment_requests:write; the server refuses anyway: this only hides the form). */
export const canRequestPayments = (role: Role) => role !== "viewer";
