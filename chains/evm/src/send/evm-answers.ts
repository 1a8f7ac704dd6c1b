import type { Hex } from "viem";
import { z } from "zod";
import { receiptSchema } from "../rpc-schemas.ts";

/**
 * The answers the treasury's EVM sender and sweeper read, checked as the indexer's are
 * (rpc-schemas.ts): only the fields used; anything else passes unchecked.
 */

/** DATA: 0x-prefixed hex, "0x" included (an empty eth_call answer). */
export const dataAnswer = z
  .string()
  .regex(/^0x[0-9a-fA-F]*$/, "hex data")
  .transform((value) => value as Hex);
/** QUANTITY: 0x-prefixed hex digits. */
export const quantityAnswer = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/, "hex quantity")
  .transform((value) => value as Hex);
/** eth_getBlockByNumber without transactions: height, hash, base fee (none on a legacy chain). */
export const blockAnswer = z.object({
  number: quantityAnswer,
  hash: dataAnswer,
  baseFeePerGas: quantityAnswer.nullish(),
});
/** A receipt as the attempt's status reads it: the indexer's, its status required (every chain we send on is past Byzantium). */
export const statusReceiptAnswer = receiptSchema.extend({ status: z.enum(["0x0", "0x1"]) });
/** A receipt as a fee paid is read from it (OP-stack chains add the L1 data fee). */
export const feeReceiptAnswer = z.object({
  gasUsed: quantityAnswer,
  effectiveGasPrice: quantityAnswer,
  l1Fee: quantityAnswer.nullish(),
});
/** Whether the node knows a transaction: any answer but null. */
export const anyAnswer = z.unknown();
/** eth_getTransactionByHash: null when unknown; its block hash null while it waits in the mempool. */
export const knownTransactionAnswer = z.object({ blockHash: dataAnswer.nullish() }).nullable();
