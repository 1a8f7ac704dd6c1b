/** The payment requests page's JSON routes: /v1/payment-requests of one merchant, as the session may see them. */
import { call } from "./api.ts";
import type { Page } from "./merchant-api.ts";

export interface PaymentRequestOption {
  network: string;
  asset: string;
  address: string;
  amount_due: string;
  amount_missing: string;
  payment_uri: string;
}

export interface PaymentRequestPayment {
  deposit_id: string;
  network: string;
  asset: string;
  amount: string;
  status: string;
  confirmations: number;
  required_confirmations: number;
  counted: boolean;
  flag: string | null;
}

export interface PaymentRequest {
  id: string;
  status: string;
  amount: string;
  currency: string;
  description: string | null;
  reference: string | null;
  hosted_url: string;
  amount_paid: string;
  amount_missing: string;
  amount_excess: string;
  options: PaymentRequestOption[];
  payments: PaymentRequestPayment[];
  expires_at: string;
  created_at: string;
}

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

/** Who may create and cancel (the server refuses anyway: this only hides the form). */
export const canRequestPayments = (role: string) => role !== "viewer";
