import { chainIdSchema } from "@mp/core";
import { DESTINATION_TYPES, SOURCE_METHODS } from "@mp/transfers";
import { z } from "zod";

/** Spec 2.9's Money object: a fiat amount's network is its bank rail (ACH), a crypto amount's its chain id. */
export const moneySchema = z.object({
  asset: z.string().describe("What moves: USD, USDC, BTC, ..."),
  currency: z.string().describe("The unit the value is counted in (the asset's symbol)"),
  network: z.string().describe("Bank rail (ACH) for fiat, chain id (BASE, TRON, ...) for crypto, LEDGER for a balance"),
  value: z.string().describe("Decimal string"),
});
export type Money = z.infer<typeof moneySchema>;

export const rateSchema = z.object({
  base_currency: z.string(),
  quote_currency: z.string(),
  value: z.string().describe("quote_currency units per base_currency unit, the spread taken; decimal string"),
});

const decimalAmount = z.string().regex(/^\d+(\.\d+)?$/, "must be a positive decimal string");

export const quoteSourceBody = z
  .discriminatedUnion("method", [
    z
      .strictObject({ method: z.literal("BANK_TRANSFER") })
      .describe("The customer pays USD by bank, just in time (payer CUSTOMER; KYC: Tier 2)"),
    z
      .strictObject({
        method: z.literal("CRYPTO_DEPOSIT"),
        asset: z.string().min(1).max(20).describe("An asset of `network`: its native coin or a configured token"),
        network: chainIdSchema.describe("A configured chain (TRON, BASE, BITCOIN, ...)"),
      })
      .describe(
        "The customer pays `asset` on `network` to a fresh address of ours, just in time (payer CUSTOMER; KYC: Tier 1, Tier 2 with a US bank destination)",
      ),
    z
      .strictObject({ method: z.literal("BALANCE") })
      .describe("The merchant's available USD, held at once (payer MERCHANT; the customer: Tier 1)"),
  ])
  .describe("Who pays and how; the funding intent of the transfer follows it (GET /v1/transfers/{id}/funding)");

export const usBankAccountBody = z.strictObject({
  type: z.literal("US_BANK_ACCOUNT"),
  account_holder_name: z.string().trim().min(1).max(140),
  routing_number: z.string().regex(/^\d{9}$/, "must be a 9-digit ABA routing number"),
  account_number: z.string().regex(/^\d{4,17}$/, "must be 4 to 17 digits"),
  account_type: z.enum(["CHECKING", "SAVINGS"]),
});
export type UsBankAccountBody = z.infer<typeof usBankAccountBody>;

const partyName = z.string().trim().min(1).max(140);

/** Travel rule data (docs/transfers.md "Travel rule"): who receives a crypto payout. */
export const beneficiaryBody = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("INDIVIDUAL"), name: partyName.describe("The person's full name") }),
    z.strictObject({
      type: z.literal("BUSINESS"),
      name: partyName.describe("The business's name"),
      legal_name: partyName.describe("Its registered legal name"),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 country code, e.g. US")
        .describe("Where it is registered: ISO 3166-1 alpha-2 (US, DE, ...)"),
    }),
  ])
  .describe(
    "Travel rule data: required when the payout is worth TRAVEL_RULE_THRESHOLD_USD (default 3,000 USD) or more (422 beneficiary_required without it); sealed at rest, shown to the platform's operators only; not kept below the threshold",
  );

export const quoteDestinationBody = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("CRYPTO_ADDRESS"),
    asset: z.string().min(1).max(20),
    network: chainIdSchema,
    address: z.string().trim().min(1).max(200),
    beneficiary: beneficiaryBody.optional(),
  }),
  usBankAccountBody,
]);

export const createQuoteBody = z
  .strictObject({
    customer_id: z.uuid("must be a UUID"),
    source: quoteSourceBody,
    destination: quoteDestinationBody,
    source_amount: decimalAmount.optional().describe("What the payer pays, fee included (or give destination_amount)"),
    destination_amount: decimalAmount.optional().describe("What the payee receives (or give source_amount)"),
  })
  .superRefine((body, ctx) => {
    if ((body.source_amount === undefined) === (body.destination_amount === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["source_amount"],
        message: "give exactly one of source_amount and destination_amount",
      });
    }
  });
export type CreateQuoteBody = z.infer<typeof createQuoteBody>;

export const quoteIdParams = z.object({ quote_id: z.uuid("must be a UUID") });

export const quoteDestination = z.object({
  type: z.enum(DESTINATION_TYPES),
  asset: z.string(),
  network: z.string(),
  address: z.string().nullable().describe("CRYPTO_ADDRESS only"),
  bank_account: z
    .object({
      account_holder_name: z.string(),
      account_number: z.string().describe("Last four digits only, e.g. ****6789"),
      routing_number: z.string(),
      account_type: z.string(),
    })
    .nullable()
    .describe("US_BANK_ACCOUNT only, masked: the full details stay encrypted at rest"),
  beneficiary_on_file: z
    .boolean()
    .describe(
      "CRYPTO_ADDRESS at or above the travel rule threshold: the beneficiary given is kept, encrypted, for operators only; false otherwise",
    ),
});

/** The economics a quote fixes, which its transfer shows too. */
export const quoteTerms = {
  source: z.object({ method: z.enum(SOURCE_METHODS), asset: z.string(), network: z.string() }),
  destination: quoteDestination,
  source_amount: moneySchema.describe("What the payer pays, the fee included"),
  fee: moneySchema,
  destination_amount: moneySchema,
  rate: rateSchema,
};

export const quoteResource = z.object({
  id: z.uuid(),
  customer_id: z.uuid(),
  ...quoteTerms,
  expires_at: z.iso.datetime(),
  used: z.boolean().describe("A quote makes one transfer"),
  created_at: z.iso.datetime(),
});
export type QuoteResource = z.infer<typeof quoteResource>;
