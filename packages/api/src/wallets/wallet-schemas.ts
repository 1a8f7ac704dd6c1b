import { CHAIN_IDS } from "@mp/core";
import { z } from "zod";

export const WALLET_STATUSES = ["ACTIVE", "DISABLED"] as const;
export const DESTINATION_STATUSES = ["ACTIVE", "FAILED", "DISABLED"] as const;

export const createWalletBody = z.strictObject({
  customer_id: z.uuid("must be a UUID"),
  label: z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters"),
});

export const listWalletsQuery = z.object({
  customer_id: z.uuid("must be a UUID").optional(),
  chain: z.enum(CHAIN_IDS).optional(),
  status: z.enum(WALLET_STATUSES).optional(),
  q: z.string().trim().min(1, "must not be empty").max(200).optional(),
});

export const walletIdParams = z.object({ id: z.uuid("must be a UUID") });

export const destinationResource = z.object({
  id: z.uuid(),
  chain: z.enum(CHAIN_IDS),
  address: z.string(),
  status: z.enum(DESTINATION_STATUSES),
  failure_reason: z.string().nullable(),
  last_attempted_at: z.iso.datetime().nullable(),
  provisioned_at: z.iso.datetime().nullable(),
});

export const walletResource = z.object({
  id: z.uuid(),
  merchant_id: z.uuid(),
  customer_id: z.uuid(),
  label: z.string(),
  status: z.enum(WALLET_STATUSES),
  destinations: z.array(destinationResource),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type WalletResource = z.infer<typeof walletResource>;
export type DestinationResource = z.infer<typeof destinationResource>;

export const depositAddressResource = z.object({
  id: z.uuid(),
  merchant_id: z.uuid(),
  chain: z.enum(CHAIN_IDS),
  address: z.string(),
  status: z.enum(DESTINATION_STATUSES),
});
