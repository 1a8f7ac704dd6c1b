import { chainIdSchema } from "@mp/core";
import { DRAIN_FAILURE_REASONS, DRAIN_STATES, LIQUIDATION_ADDRESS_STATUSES, NOT_PAID_REASONS } from "@mp/liquidation";
import { z } from "zod";
import { rfc3339 } from "../customers/customer-schemas.ts";
import { moneySchema, quoteDestination, quoteDestinationBody, rateSchema } from "../quotes/quote-schemas.ts";

export const createLiquidationAddressBody = z.strictObject({
  customer_id: z
    .uuid("must be a UUID")
    .describe("One of your customers (KYC: as a BALANCE transfer to the destination)"),
  network: chainIdSchema.describe("The chain the address is on (BASE, SOLANA, ...)"),
  asset: z
    .string()
    .trim()
    .min(1)
    .max(20)
    .describe("The one asset it drains (USDC, SOL, ...): other assets sent to it are ordinary deposits"),
  destination: quoteDestinationBody.describe(
    "Where every deposit is paid out: a crypto address on any configured chain and asset, or a US bank account",
  ),
  return_address: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("Where money that cannot be paid out is returned (returns issue); until then it stays on your balance"),
  reference: z.string().trim().min(1).max(128).optional().describe("Your own reference"),
});
export type CreateLiquidationAddressBody = z.infer<typeof createLiquidationAddressBody>;

export const liquidationAddressIdParams = z.object({ id: z.uuid("must be a UUID") });

export const listLiquidationAddressesQuery = z.object({
  status: z.enum(LIQUIDATION_ADDRESS_STATUSES).optional(),
  customer_id: z.uuid("must be a UUID").optional(),
  network: chainIdSchema.optional(),
  reference: z.string().min(1).max(128).optional(),
  created_from: rfc3339.optional(),
  created_to: rfc3339.optional(),
});

export const listDrainsQuery = z.object({ state: z.enum(DRAIN_STATES).optional() });

export const liquidationAddressResource = z.object({
  id: z.uuid(),
  customer_id: z.uuid(),
  network: z.string(),
  asset: z.string(),
  address: z.string().describe("A fresh address of ours on `network`, for this liquidation address only"),
  destination: quoteDestination.extend({
    beneficiary_on_file: z
      .boolean()
      .describe(
        "CRYPTO_ADDRESS: a beneficiary was given (kept encrypted, for operators only); every drain paying TRAVEL_RULE_THRESHOLD_USD or more carries it, and fails beneficiary_required without it",
      ),
  }),
  return_address: z.string().nullable(),
  reference: z.string().nullable(),
  status: z.enum(LIQUIDATION_ADDRESS_STATUSES),
  disabled_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const drainResource = z.object({
  id: z.uuid(),
  liquidation_address_id: z.uuid(),
  deposit_id: z.uuid(),
  state: z.enum(DRAIN_STATES),
  not_paid_reason: z
    .enum(NOT_PAID_REASONS)
    .nullable()
    .describe(
      "not_paid (and refunded from it): below_minimum (less than the chain's minimum or the fee), held (the deposit is held)",
    ),
  failure_reason: z
    .enum(DRAIN_FAILURE_REASONS)
    .nullable()
    .describe(
      "failed only: payout_failed (its transfer failed), or no payout could be made: beneficiary_required (travel rule: the address has no beneficiary), destination_sanctioned, destination_internal, customer_not_verified, amount_below_minimum, retries_exhausted. The money stays on your available balance, or goes to the return_address (state refunded, return)",
    ),
  deposit: z.object({
    network: z.string(),
    asset: z.string(),
    amount: z.string(),
    tx_hash: z.string(),
    usd_rate: z.string().nullable().describe("USD per unit at the deposit's confirmation"),
  }),
  transfer_id: z.uuid().nullable().describe("The BALANCE transfer paying the drain out (GET /v1/transfers/{id})"),
  source_amount: moneySchema.nullable().describe("The deposit's USD value in whole cents, the fee included"),
  fee: moneySchema.nullable(),
  destination_amount: moneySchema.nullable(),
  rate: rateSchema.nullable(),
  states: z.array(z.object({ state: z.enum(DRAIN_STATES), at: z.iso.datetime() })),
  return: z
    .object({
      state: z.enum(["payable", "sending", "returned"]),
      address: z.string().nullable(),
      amount: moneySchema
        .nullable()
        .describe("What the return_address gets: the deposit less network_fee; null while payable"),
      network_fee: moneySchema,
      reason: z.string().nullable().describe("Why it stays payable (not more than its network fee)"),
    })
    .nullable()
    .describe(
      "The money sent back to the address's return_address when the drain could not pay out (state refunded); null when none",
    ),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
