/** The quotes page's and the "New payout" flow's JSON routes: a merchant's quotes, and a transfer from one. */
import type { QuotePageAnswer, TransferResource } from "./answers.ts";
import { call, callOnce, type Role } from "./api.ts";
import { type Page, paramsOf } from "./merchant-api.ts";

export type Quote = QuotePageAnswer;
export type QuoteState = Quote["state"];

/** What POST /v1/quotes takes (quote-schemas.ts), as the form fills it. */
export interface QuoteRequest {
  customer_id: string;
  source: { method: "BALANCE" | "BANK_TRANSFER" } | { method: "CRYPTO_DEPOSIT"; asset: string; network: string };
  destination:
    | { type: "CRYPTO_ADDRESS"; asset: string; network: string; address: string }
    | {
        type: "US_BANK_ACCOUNT";
        account_holder_name: string;
        routing_number: string;
        account_number: string;
        account_type: "CHECKING" | "SAVINGS";
      };
  source_amount?: string;
  destination_amount?: string;
}

const m = (merchantId: string, path: string) => `/merchants/${encodeURIComponent(merchantId)}${path}`;

export const quoteApi = {
  list: (id: string, page: number, state: QuoteState | "") =>
    call<Page<Quote>>("GET", m(id, `/quotes?${paramsOf({ limit: 50, page, state })}`)),
  get: (id: string, quoteId: string) => call<Quote>("GET", m(id, `/quotes/${encodeURIComponent(quoteId)}`)),
  create: (id: string, body: QuoteRequest) => call<{ id: string }>("POST", m(id, "/quotes"), body),
  /** Starts the quote's transfer; `idempotencyKey` is the quote's own, so a retry never pays twice. */
  pay: (id: string, quoteId: string, idempotencyKey: string) =>
    callOnce<TransferResource>("POST", m(id, "/transfers"), { quote_id: quoteId }, idempotencyKey),
};

/** Who may quote and pay out (transfers:write: owner, developer, finance; the server refuses anyway). */
export const canPayOut = (role: Role) => role !== "viewer";
