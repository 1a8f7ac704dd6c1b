import { CHAIN_IDS } from "@mp/core";
import { z } from "zod";

export const sandboxDepositBody = z.object({
  address: z.string().trim().min(1).max(200).describe("One of your wallets' receive addresses"),
  asset: z.string().trim().min(1).max(20).describe("USDC, USDT or the chain's native coin (ETH, BTC, SOL, TRX, ...)"),
  amount: z
    .string()
    .regex(/^\d+(\.\d+)?$/, 'must be a positive decimal string, e.g. "25.00"')
    .describe("Decimal amount in the asset's units"),
  chain: z
    .enum(CHAIN_IDS)
    .optional()
    .describe("Needed only to pick an EVM chain other than BASE (the seven EVM chains share one address)"),
});
export type SandboxDepositBody = z.infer<typeof sandboxDepositBody>;

export const sandboxDepositIdParams = z.object({ id: z.uuid("must be a UUID") });

export const sandboxDepositResource = z.object({
  id: z.uuid().describe("The send; GET /v1/sandbox/deposits/{id} follows it"),
  chain: z.enum(CHAIN_IDS),
  address: z.string(),
  wallet_id: z.uuid(),
  destination_id: z.uuid(),
  asset: z.string(),
  amount: z.string(),
  amount_raw: z.string().regex(/^\d+$/),
  status: z
    .enum(["QUEUED", "SENDING", "SUBMITTED", "FAILED"])
    .describe("QUEUED until the worker sends it after the request committed; SUBMITTED once on chain"),
  tx_hash: z
    .string()
    .nullable()
    .describe(
      "Once SUBMITTED: the transaction on the local sandbox chain; GET /v1/deposits?tx_hash= finds the deposit",
    ),
  last_error: z.string().nullable(),
  created_at: z.iso.datetime(),
});
export type SandboxDepositResource = z.infer<typeof sandboxDepositResource>;
