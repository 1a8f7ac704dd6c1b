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

export const sandboxDepositResource = z.object({
  chain: z.enum(CHAIN_IDS),
  address: z.string(),
  wallet_id: z.uuid(),
  destination_id: z.uuid(),
  asset: z.string(),
  amount: z.string(),
  amount_raw: z.string().regex(/^\d+$/),
  tx_hash: z
    .string()
    .describe("The transaction on the local sandbox chain; GET /v1/deposits?tx_hash= finds the deposit"),
  status: z.literal("SUBMITTED"),
});
