import { type Command, Option } from "commander";
import { addShowCommand, listLimit, printList, uuidOf, withDatabase } from "./cli-support.ts";

const STATUSES = ["open", "processing", "paid", "underpaid", "overpaid", "expired", "canceled"];

/**
 * `payments payment-requests list|show`: the operator's view of payment requests (any merchant's),
 * as the API answers them (options, payments with live confirmations, figures).
 */
export function addPaymentRequestCommands(program: Command): void {
  const group = program.command("payment-requests").description("Operator: merchants' payment requests");
  group
    .command("list")
    .description("The newest payment requests, of every merchant or one: status, amount, paid, missing")
    .option("--merchant <id>", "only this merchant's", uuidOf("merchant"))
    .addOption(new Option("--status <status>", "only those in this status").choices(STATUSES))
    .option("--limit <n>", "how many (1..1000)", "50")
    .option("--json", "one JSON object per line (the API's form, with merchant_id)")
    .action(async (options: { merchant?: string; status?: string; limit: string; json?: boolean }) => {
      const limit = listLimit(options.limit);
      const { listPaymentRequestsForOperator } = await import("@mp/payment-requests");
      const { paymentUriOf } = await import("../chain-families.ts");
      const items = await withDatabase((db, config) =>
        listPaymentRequestsForOperator(
          db,
          { merchantId: options.merchant, status: options.status as never, limit },
          { publicUrl: config.paymentRequests.publicUrl, chains: config.chains ?? {}, paymentUri: paymentUriOf },
        ),
      );
      printList(options.json, items, {
        json: (r) => r,
        text: (r) =>
          `${r.id} ${r.status} ${r.amount} ${r.currency} paid ${r.amount_paid} missing ${r.amount_missing} merchant ${r.merchant_id} created ${r.created_at}${r.reference ? ` ref ${r.reference}` : ""}`,
        counted: "payment requests",
      });
    });
  addShowCommand(group, {
    what: "payment request",
    description: "One payment request: its options (address, amount, payment URI) and payments",
    json: "the request as one JSON object",
    find: async (db, config, id) => {
      const { findPaymentRequestForOperator } = await import("@mp/payment-requests");
      const { paymentUriOf } = await import("../chain-families.ts");
      return findPaymentRequestForOperator(db, id, {
        publicUrl: config.paymentRequests.publicUrl,
        chains: config.chains ?? {},
        paymentUri: paymentUriOf,
      });
    },
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
