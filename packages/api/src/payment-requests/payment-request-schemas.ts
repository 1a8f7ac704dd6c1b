import { CHAIN_IDS } from "@mp/core";
import { PAYMENT_FLAGS, PAYMENT_REQUEST_STATUSES } from "@mp/payment-requests";
import { z } from "zod";
import { rfc3339 } from "../customers/customer-schemas.ts";

const pageUrl = z
  .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
  .max(2048)
  .describe("Where the hosted page sends the payer (an http(s) URL)");

const option = z.strictObject({
  network: z.enum(CHAIN_IDS).describe("Chain id (BASE, BITCOIN, SOLANA, TRON, ...)"),
  asset: z
    .string()
    .trim()
    .min(1)
    .max(20)
    .describe("The chain's native coin (ETH, BTC, SOL, TRX, ...) or one of its configured tokens (USDC, USDT)"),
});

export const createPaymentRequestBody = z.strictObject({
  amount: z
    .string()
    .regex(/^\d{1,15}(\.\d{1,18})?$/, 'must be a positive decimal string, e.g. "25.00"')
    .describe("What the payer owes, in `currency` (USD: at most 2 decimals)"),
  currency: z
    .string()
    .regex(/^(USD|[A-Z][A-Z0-9]{1,9}(\.[a-z])?)$/, "must be USD or an asset symbol such as USDC or BTC")
    .default("USD")
    .describe("USD (priced in each accepted asset at a locked rate), or a crypto asset the request is paid in as is"),
  description: z.string().trim().min(1).max(500).optional().describe("Shown to the payer on the hosted page"),
  reference: z
    .string()
    .trim()
    .min(1)
    .max(128)
    .optional()
    .describe("Your own reference (an order id): never shown to the payer"),
  customer_id: z
    .uuid("must be a UUID")
    .optional()
    .describe("One of your customers: its verification applies to the payments"),
  accepted: z
    .array(option)
    .min(1, "must name at least one network and asset")
    .max(40)
    .optional()
    .describe("The assets and networks the payer may choose from; default: every configured one (with a rate)"),
  expires_at: rfc3339
    .optional()
    .describe(
      "When the request stops accepting payment: 1 minute to 30 days ahead; default PAYMENT_REQUEST_TTL_SECONDS",
    ),
  success_url: pageUrl.optional(),
  cancel_url: pageUrl.optional(),
  metadata: z
    .record(z.string().min(1).max(40), z.string().max(500))
    .refine((m) => Object.keys(m).length <= 20, "at most 20 keys")
    .optional()
    .describe("Up to 20 string keys and values of yours, returned as given"),
});
export type CreatePaymentRequestBody = z.infer<typeof createPaymentRequestBody>;

export const paymentRequestIdParams = z.object({ id: z.uuid("must be a UUID") });

export const listPaymentRequestsQuery = z.object({
  status: z.enum(PAYMENT_REQUEST_STATUSES).optional(),
  reference: z.string().min(1).max(128).optional(),
  customer_id: z.uuid("must be a UUID").optional(),
  created_from: rfc3339.optional(),
  created_to: rfc3339.optional(),
});

const requestAmount = z.string().describe("In the request's currency");

export const paymentRequestOption = z.object({
  network: z.enum(CHAIN_IDS),
  asset: z.string(),
  address: z.string().describe("A fresh address of ours on `network`, for this request only"),
  contract_address: z.string().nullable().describe("The token's contract or mint; null for the chain's coin"),
  amount_due: z.string().describe("The whole request in this asset at the locked rate"),
  amount_missing: z.string().describe("What is still to be paid in this asset, beyond what was seen"),
  rate: z.string().nullable().describe("USD per whole unit the amount was priced at; null for a request in this asset"),
  payment_uri: z
    .string()
    .describe(
      "What the QR code holds, for amount_missing (amount_due once paid): BIP-21 (Bitcoin), EIP-681 with the chain id (EVM), Solana Pay (Solana), tron: (Tron)",
    ),
});

/** A payment toward a request as both the API and the payer's checkout page show it. */
export const seenPaymentFields = {
  network: z.enum(CHAIN_IDS),
  asset: z.string(),
  amount: z.string(),
  status: z.enum(["PENDING", "CONFIRMED", "REVERSED"]),
  confirmations: z.number().int(),
  required_confirmations: z.number().int(),
};

export const paymentRequestPayment = z.object({
  deposit_id: z.uuid().describe("The deposit (GET /v1/deposits/{id}): credited to your balance like any deposit"),
  ...seenPaymentFields,
  tx_hash: z.string(),
  counted: z.boolean().describe("Whether it counts toward the request"),
  flag: z
    .enum(PAYMENT_FLAGS)
    .nullable()
    .describe(
      "Why it does not count: late (first seen after expiry or cancel), not_accepted (another asset or network), held (its customer rejected)",
    ),
  seen_at: z.iso.datetime(),
});

export const paymentRequestResource = z.object({
  id: z.uuid(),
  status: z.enum(PAYMENT_REQUEST_STATUSES),
  amount: requestAmount,
  currency: z.string(),
  description: z.string().nullable(),
  reference: z.string().nullable(),
  customer_id: z.uuid().nullable(),
  metadata: z.record(z.string(), z.string()),
  hosted_url: z.string().describe("The hosted page: send the payer there (its id is unguessable, no key needed)"),
  success_url: z.string().nullable(),
  cancel_url: z.string().nullable(),
  amount_paid: requestAmount.describe("Confirmed payments that count, in the request's currency"),
  amount_pending: requestAmount.describe("Seen, not yet confirmed payments that count"),
  amount_missing: requestAmount.describe("What is still to be paid beyond what was seen (underpaid: the missing part)"),
  amount_excess: requestAmount.describe("Confirmed beyond the amount (overpaid)"),
  rate_locked_until: z.iso
    .datetime()
    .describe("Until when the options' amounts hold; re-quoted when the payer looks after it lapsed with nothing paid"),
  options: z.array(paymentRequestOption),
  payments: z.array(paymentRequestPayment),
  expires_at: z.iso.datetime(),
  paid_at: z.iso.datetime().nullable(),
  canceled_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
