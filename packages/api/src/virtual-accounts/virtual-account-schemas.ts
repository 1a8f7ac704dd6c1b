import { z } from "zod";

/** PROVISIONING -> ACTIVE (the bank activated it) or FAILED (the bank refused it; a new one may be opened). */
export const VIRTUAL_ACCOUNT_STATUSES = ["PROVISIONING", "ACTIVE", "FAILED"] as const;
export type VirtualAccountStatus = (typeof VIRTUAL_ACCOUNT_STATUSES)[number];

export const createVirtualAccountBody = z.strictObject({
  customer_id: z.uuid("must be a UUID"),
  currency: z.literal("USD", "must be USD"),
});

export const virtualAccountIdParams = z.object({ virtual_account_id: z.uuid("must be a UUID") });

/** Spec 2.4, creation response and any retrieval while not ACTIVE. */
export const maskedInstructions = z.object({
  account_number: z.string().describe("Last four digits only, e.g. ****6789"),
  account_type: z.string(),
  bank_name: z.string(),
});

/** Spec 2.4, retrieval by id while ACTIVE. */
export const fullInstructions = z.object({
  account_type: z.string(),
  bank_account_number: z.string(),
  bank_address: z.string(),
  bank_beneficiary_address: z.string(),
  bank_beneficiary_name: z.string(),
  bank_name: z.string(),
  bank_routing_number: z.string(),
  bic: z.string(),
  deposit_message: z.string(),
  iban: z.string(),
  payment_rails: z.array(z.string()),
});

export const virtualAccountResource = z.object({
  id: z.uuid(),
  customer_id: z.uuid(),
  currency: z.literal("USD"),
  status: z.enum(VIRTUAL_ACCOUNT_STATUSES),
  supported_rails: z.array(z.string()),
  deposit_instructions: z.union([fullInstructions, maskedInstructions]),
  failure_reason: z.string().nullable().describe("Why the bank refused the account (FAILED only)"),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type VirtualAccountResource = z.infer<typeof virtualAccountResource>;

/** The instructions as sealed at rest (the provider's shape), validated whenever they are opened. */
export const storedInstructions = z.object({
  accountType: z.string(),
  accountNumber: z.string(),
  routingNumber: z.string(),
  iban: z.string(),
  bic: z.string(),
  bankName: z.string(),
  bankAddress: z.string(),
  beneficiaryName: z.string(),
  beneficiaryAddress: z.string(),
  depositMessage: z.string(),
  paymentRails: z.array(z.string()),
});
export type StoredInstructions = z.infer<typeof storedInstructions>;
