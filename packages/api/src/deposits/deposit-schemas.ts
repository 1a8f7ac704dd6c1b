import { CHAIN_IDS } from "@mp/core";
import { z } from "zod";

export const DEPOSIT_STATUSES = ["PENDING", "CONFIRMED", "REVERSED"] as const;
export const HOLD_STATUSES = ["HELD", "RELEASED", "RETURNED"] as const;

export const listDepositsQuery = z.object({
  chain: z.enum(CHAIN_IDS).optional(),
  status: z.enum(DEPOSIT_STATUSES).optional(),
  tx_hash: z.string().trim().min(1).max(200).optional(),
  wallet_id: z.uuid("must be a UUID").optional(),
  customer_id: z.uuid("must be a UUID").optional(),
});

export const depositIdParams = z.object({ id: z.uuid("must be a UUID") });

const decimal = z.string().regex(/^-?\d+\.\d+$/);

export const depositResource = z.object({
  id: z.uuid(),
  merchant_id: z.uuid(),
  wallet_id: z.uuid(),
  customer_id: z.uuid().nullable(),
  chain: z.enum(CHAIN_IDS),
  asset: z.string(),
  contract_address: z.string().nullable().describe("Token contract or mint; null for the chain's native coin"),
  from_address: z.string().nullable(),
  to_address: z.string(),
  tx_hash: z.string(),
  block_height: z.number().int(),
  confirmations: z.number().int().describe("Live: blocks since the deposit's block, including it"),
  required_confirmations: z.number().int(),
  amount: decimal.describe("At least six fractional digits, more only where the asset has them; never rounded"),
  amount_raw: z.string().regex(/^\d+$/).describe("Integer amount in the asset's smallest units"),
  amount_usd: decimal.nullable().describe("Fixed when the deposit confirms; null while pending"),
  fee_usd: decimal.nullable(),
  net_amount_usd: decimal.nullable(),
  usd_rate: z.string().nullable().describe("USD per whole unit used at confirmation"),
  status: z.enum(DEPOSIT_STATUSES),
  awaiting_rate: z
    .boolean()
    .describe(
      "PENDING with its confirmations, but its asset has no usable USD rate (none quoted, a stale or refused feed): credited at the first fresh one",
    ),
  held: z
    .boolean()
    .describe("Credited but held out of available (the customer's verification was rejected) until an operator acts"),
  hold_status: z
    .enum(HOLD_STATUSES)
    .nullable()
    .describe("null: never held; HELD; RELEASED to available; RETURNED: owed back to the payer"),
  held_reason: z.enum(["customer_rejected"]).nullable(),
  confirmed_at: z.iso.datetime().nullable(),
  reversed_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export type DepositResource = z.infer<typeof depositResource>;
