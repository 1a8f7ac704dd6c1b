import { z } from "zod";

/**
 * Shapes of the JSON-RPC answers the adapter reads (Ethereum JSON-RPC spec, execution-apis), with
 * only the fields it uses: every other field (chain-specific ones included: Celo, OP-stack
 * deposits, Arbitrum system transactions) passes unchecked and is dropped.
 */

/** QUANTITY: 0x-prefixed hex without leading zeros (tolerated: some nodes pad). */
const quantity = z.string().regex(/^0x[0-9a-fA-F]+$/, "hex quantity");

/** A height or index: a QUANTITY that fits a JS number exactly. */
export const safeIntegerQuantity = quantity.transform((value, ctx) => {
  const number = Number.parseInt(value.slice(2), 16);
  if (!Number.isSafeInteger(number)) {
    ctx.addIssue({ code: "custom", message: "quantity beyond 2^53" });
    return z.NEVER;
  }
  return number;
});

/** An amount: any QUANTITY, as bigint (wei and token units exceed 2^53). */
export const bigintQuantity = quantity.transform((value) => BigInt(value));

/** A block or transaction hash, lowercase. */
export const hash32 = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "32-byte hash")
  .transform((value) => value.toLowerCase());
/** An address, lowercase (how the watch set holds it). */
export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "20-byte address")
  .transform((value) => value.toLowerCase());
const data = z.string().regex(/^0x(?:[0-9a-fA-F]{2})*$/, "hex data");

/** eth_blockNumber */
export const blockNumberSchema = safeIntegerQuantity;
export const chainIdSchema = safeIntegerQuantity;

/** eth_getBlockByNumber(n, false): the header fields reorg detection needs. */
export const blockHeaderSchema = z.object({
  number: safeIntegerQuantity,
  hash: hash32,
  parentHash: hash32,
});

/** A transaction object inside eth_getBlockByNumber(n, true). */
export const blockTransactionSchema = z.object({
  hash: hash32,
  from: address,
  /** null (or absent, on some system transactions) for a contract creation. */
  to: address.nullish(),
  value: bigintQuantity,
  transactionIndex: safeIntegerQuantity,
});
export type BlockTransaction = z.output<typeof blockTransactionSchema>;

/** eth_getBlockByNumber(n, true) */
export const fullBlockSchema = blockHeaderSchema.extend({
  transactions: z.array(blockTransactionSchema),
  /** 256 bytes; checked against eth_getLogs (logs-bloom.ts). Absent on a few non-standard nodes. */
  logsBloom: z
    .string()
    .regex(/^0x[0-9a-fA-F]{512}$/, "256-byte bloom")
    .optional(),
});
export type FullBlock = z.output<typeof fullBlockSchema>;

/**
 * eth_getTransactionReceipt: `status` is 0x1/0x0 since Byzantium (EIP-658); older receipts carry
 * a state `root` and no status (null or absent), which proves nothing about success.
 */
export const receiptSchema = z.object({
  transactionHash: hash32,
  blockHash: hash32,
  blockNumber: safeIntegerQuantity,
  status: z.enum(["0x0", "0x1"]).nullish(),
});
export type Receipt = z.output<typeof receiptSchema>;

/** One entry of eth_getLogs. */
export const logSchema = z.object({
  address,
  topics: z.array(hash32),
  data,
  blockNumber: safeIntegerQuantity,
  blockHash: hash32,
  transactionHash: hash32,
  transactionIndex: safeIntegerQuantity,
  logIndex: safeIntegerQuantity,
  removed: z.boolean().optional(),
});
export type Log = z.output<typeof logSchema>;

export const logsSchema = z.array(logSchema);
