import { btcToSatoshis } from "@mp/bitcoin-protocol";
import { z } from "zod";

/**
 * The parts of Bitcoin Core's RPC answers the adapter relies on, validated at the boundary. Fields
 * it does not read are allowed and ignored (Core adds fields between versions). Inputs are parsed
 * by @mp/rpc's exact-number parser, so BTC amounts arrive as their decimal literal (string) or a
 * JSON integer.
 */

export const HASH_HEX = /^[0-9a-f]{64}$/;
export const hashSchema = z.string().regex(HASH_HEX, "expected a 64-digit lowercase hex hash");
const heightSchema = z.number().int().min(0);

export const blockCountSchema = heightSchema;
export const blockHashSchema = hashSchema;

export const blockchainInfoSchema = z.object({ chain: z.string() });

/** getblockheader <hash> true (and the header fields of getblock). */
export const blockHeaderSchema = z.object({
  hash: hashSchema,
  /** -1 when the block is no longer on the active chain. */
  confirmations: z.number().int(),
  height: heightSchema,
  previousblockhash: hashSchema.optional(),
});
export type RpcBlockHeader = z.infer<typeof blockHeaderSchema>;

/** A BTC amount as Core writes it, converted exactly to satoshis (bigint). */
export const amountSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const satoshis = btcToSatoshis(value);
  if (satoshis === null) {
    ctx.issues.push({ code: "custom", message: "expected a BTC amount with at most 8 decimals", input: value });
    return z.NEVER;
  }
  return satoshis;
});

export const scriptPubKeySchema = z.object({
  hex: z.string().regex(/^([0-9a-f]{2})*$/, "expected hex"),
  type: z.string(),
  /** Core >= 22; older versions wrote `addresses` instead. */
  address: z.string().optional(),
});

export const voutSchema = z.object({
  value: amountSchema,
  n: z.number().int().min(0),
  scriptPubKey: scriptPubKeySchema,
});

export const vinSchema = z.object({ coinbase: z.string().optional() });

export const transactionSchema = z.object({
  txid: hashSchema,
  vin: z.array(vinSchema).min(1),
  vout: z.array(voutSchema),
});
export type RpcTransaction = z.infer<typeof transactionSchema>;

/** getblock <hash> 2. */
export const blockSchema = blockHeaderSchema.extend({
  tx: z.array(transactionSchema).min(1),
});
export type RpcBlock = z.infer<typeof blockSchema>;
