import { depositResource, EVENT_TYPES } from "@mp/events";
import { z } from "zod";
import { customerResource, rfc3339 } from "../customers/customer-schemas.ts";
import { drainResource, liquidationAddressResource } from "../liquidation-addresses/liquidation-schemas.ts";
import { paymentRequestResource } from "../payment-requests/payment-request-schemas.ts";
import { transferResource } from "../transfers/transfer-schemas.ts";
import { verificationSubmissionResource } from "../verification/verification-schemas.ts";
import { bankDepositResource } from "../virtual-accounts/bank-deposit-schemas.ts";
import { virtualAccountResource } from "../virtual-accounts/virtual-account-schemas.ts";
import { walletResource } from "../wallets/wallet-schemas.ts";

export const EVENT_OBJECT_TYPES = [
  "customer",
  "verification_submission",
  "virtual_account",
  "wallet",
  "deposit",
  "bank_deposit",
  "transfer",
  "payment_request",
  "liquidation_address",
  "liquidation_drain",
] as const;

export const listEventsQuery = z.object({
  type: z.enum(EVENT_TYPES).optional(),
  object_id: z.string().trim().min(1).max(200).optional(),
  created_from: rfc3339.optional(),
  created_to: rfc3339.optional(),
  delivery_failed: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .describe(
      "true: events with a webhook delivery that failed (out of attempts, or its last attempt failed and it is being retried); false: events without one",
    ),
});

export const eventIdParams = z.object({ id: z.uuid("must be a UUID") });

export const eventResource = z.object({
  id: z.uuid().describe("The event's id: the same on every delivery of it (the webhook-id header)"),
  type: z.enum(EVENT_TYPES),
  object_type: z.enum(EVENT_OBJECT_TYPES),
  object_id: z.string(),
  object_version: z
    .number()
    .int()
    .min(1)
    .describe("Per object: 1 for its first event, then one more for each; a receiver keeps the highest it saw"),
  environment: z.enum(["sandbox", "production"]),
  idempotency_key: z
    .string()
    .nullable()
    .describe("The X-Idempotency-Key of the request that caused the change; null for background changes"),
  created_at: z.iso.datetime(),
  data: z
    .union([
      customerResource,
      verificationSubmissionResource,
      virtualAccountResource,
      walletResource,
      depositResource,
      bankDepositResource,
      transferResource,
      paymentRequestResource,
      liquidationAddressResource,
      drainResource,
    ])
    .describe("The object as it was right after the change, in the form its GET returns (bank details masked)"),
});
export type EventResource = z.infer<typeof eventResource>;
