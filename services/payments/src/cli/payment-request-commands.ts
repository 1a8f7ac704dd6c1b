import type { AppConfig } from "@mp/core";
import type { PresentSettings } from "@mp/payment-requests";
import type { Command } from "commander";
import { addMerchantRecordsList, addShowCommand } from "./cli-support.ts";

// PAYMENT_REQUEST_STATUSES, not imported: @mp/payment-requests is loaded only when a command runs.
const STATUSES = ["open", "processing", "paid", "underpaid", "overpaid", "expired", "canceled"] as const;

/** How the API presents a request (hosted page, payment URIs), from the service's configuration. */
async function presentSettings(config: AppConfig): Promise<PresentSettings> {
  const { paymentUriOf } = await import("../chain-families.ts");
  return { publicUrl: config.paymentRequests.publicUrl, chains: config.chains ?? {}, paymentUri: paymentUriOf };
}

/**
 * `payments payment-requests list|show`: the operator's view of payment requests (any merchant's),
 * as the API answers them (options, payments with live confirmations, figures).
 */
export function addPaymentRequestCommands(program: Command): void {
  const group = program.command("payment-requests").description("Operator: merchants' payment requests");
  addMerchantRecordsList(group, {
    description: "The newest payment requests, of every merchant or one: status, amount, paid, missing",
    statuses: STATUSES,
    json: "one JSON object per line (the API's form, with merchant_id)",
    find: async (db, config, filter) =>
      (await import("@mp/payment-requests")).listPaymentRequestsForOperator(db, filter, await presentSettings(config)),
    text: (r) =>
      `${r.id} ${r.status} ${r.amount} ${r.currency} paid ${r.amount_paid} missing ${r.amount_missing} merchant ${r.merchant_id} created ${r.created_at}${r.reference ? ` ref ${r.reference}` : ""}`,
    counted: "payment requests",
  });
  addShowCommand(group, {
    what: "payment request",
    description: "One payment request: its options (address, amount, payment URI) and payments",
    json: "the request as one JSON object",
    find: async (db, config, id) =>
      (await import("@mp/payment-requests")).findPaymentRequestForOperator(db, id, await presentSettings(config)),
    lines: (request) => [
      `${request.id} ${request.status} (merchant ${request.merchant_id})`,
      `amount ${request.amount} ${request.currency}: paid ${request.amount_paid}, pending ${request.amount_pending}, missing ${request.amount_missing}, excess ${request.amount_excess}`,
      `hosted page ${request.hosted_url}; rate locked until ${request.rate_locked_until}; expires ${request.expires_at}`,
      ...request.options.map(
        (o) => `option ${o.asset} on ${o.network}: ${o.amount_due} to ${o.address} (${o.payment_uri})`,
      ),
      ...request.payments.map(
        (p) =>
          `payment ${p.amount} ${p.asset} on ${p.network} ${p.status} ${p.confirmations}/${p.required_confirmations}${p.counted ? "" : ` not counted (${p.flag ?? "reversed"})`} deposit ${p.deposit_id}`,
      ),
    ],
  });
}
