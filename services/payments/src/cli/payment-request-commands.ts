import { ConfigError } from "@mp/core";
import { type Command, InvalidArgumentError, Option } from "commander";
import { printJson, printList, withDatabase } from "./cli-support.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuid = (what: string) => (value: string) => {
  if (!UUID.test(value)) throw new InvalidArgumentError(`must be a ${what} id (UUID)`);
  return value;
};
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
    .option("--merchant <id>", "only this merchant's", uuid("merchant"))
    .addOption(new Option("--status <status>", "only those in this status").choices(STATUSES))
    .option("--limit <n>", "how many (1..1000)", "50")
    .option("--json", "one JSON object per line (the API's form, with merchant_id)")
    .action(async (options: { merchant?: string; status?: string; limit: string; json?: boolean }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ConfigError("--limit", "must be 1..1000");
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
  group
    .command("show")
    .description("One payment request: its options (address, amount, payment URI) and payments")
    .argument("<id>", "the payment request's id", uuid("payment request"))
    .option("--json", "the request as one JSON object")
    .action(async (id: string, options: { json?: boolean }) => {
      const { findPaymentRequestForOperator } = await import("@mp/payment-requests");
      const { paymentUriOf } = await import("../chain-families.ts");
      const request = await withDatabase((db, config) =>
        findPaymentRequestForOperator(db, id, {
          publicUrl: config.paymentRequests.publicUrl,
          chains: config.chains ?? {},
          paymentUri: paymentUriOf,
        }),
      );
      if (!request) {
        process.stderr.write(`payment request ${id} not found\n`);
        process.exitCode = 1;
        return;
      }
      if (options.json) {
        printJson(request);
        return;
      }
      const lines = [
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
      ];
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}
