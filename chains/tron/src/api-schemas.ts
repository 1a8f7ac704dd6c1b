import { z } from "zod";

/**
 * zod schemas for the slice of the java-tron full-node HTTP API (`/wallet/*`, addresses as hex, i.e.
 * without `visible`) that the adapter reads, in the shapes of developers.tron.network. Only fields
 * the adapter uses are checked; the rest pass through unvalidated and unused.
 *
 * The API prints protobuf messages with proto3 defaults omitted: block 0 has no `number`, a block
 * without transactions has no `transactions`, a receipt of a plain TRX transfer has no `result`.
 */

export const hash32Schema = z.string().regex(/^[0-9a-fA-F]{64}$/, "not a 32-byte hex hash");
export const hexAddressSchema = z.string().regex(/^41[0-9a-fA-F]{40}$/, "not a 21-byte hex address");

/** Heights are int64 on the wire but stay far below 2^53. */
const heightSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * An int64 amount in sun: a JSON number while it is a safe integer, or the digit string the
 * exact-number parser of @mp/rpc substitutes for longer numbers before JSON.parse can round them.
 */
export const sunSchema = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,19}$/)])
  .transform((value) => BigInt(value));

const blockHeaderSchema = z.object({
  raw_data: z.object({
    number: heightSchema.default(0),
    parentHash: hash32Schema,
    timestamp: z.number().int().optional(),
    witness_address: z.string().optional(),
  }),
});

const contractSchema = z.object({
  type: z.string(),
  parameter: z.object({ value: z.record(z.string(), z.unknown()) }),
});

export const blockTransactionSchema = z.object({
  txID: hash32Schema,
  /** `[{contractRet}]`; an executed transaction always has it on current nodes. */
  ret: z.array(z.object({ contractRet: z.string().optional() })).optional(),
  raw_data: z.object({ contract: z.array(contractSchema).min(1) }),
});
export type ApiBlockTransaction = z.infer<typeof blockTransactionSchema>;

/** `parameter.value` of a `TransferContract` (a TRX payment). */
export const transferContractSchema = z.object({
  owner_address: hexAddressSchema,
  to_address: hexAddressSchema,
  amount: sunSchema,
});

export const blockSchema = z.object({
  blockID: hash32Schema,
  block_header: blockHeaderSchema,
  transactions: z.array(blockTransactionSchema).optional(),
});
export type ApiBlock = z.infer<typeof blockSchema>;

/** A block with its header only checked (transactions, if present, are not looked at). */
export const blockHeaderOnlySchema = z.object({ blockID: hash32Schema, block_header: blockHeaderSchema });
export type ApiBlockHeader = z.infer<typeof blockHeaderOnlySchema>;

/** `getblockbylimitnext`: `{block: [...]}`, or `{}` when the node has none of them. */
export const blockListSchema = z.object({ block: z.array(blockHeaderOnlySchema).optional() });

const logSchema = z.object({
  /** The emitting contract's 20-byte id, hex without the 0x41 prefix. */
  address: z.string(),
  topics: z.array(z.string()).optional(),
  data: z.string().optional(),
});
export type ApiLog = z.infer<typeof logSchema>;

export const transactionInfoSchema = z.object({
  id: hash32Schema,
  blockNumber: heightSchema.optional(),
  /** `result` is set for smart-contract calls (SUCCESS, REVERT, OUT_OF_ENERGY, …). */
  receipt: z.object({ result: z.string().optional() }).optional(),
  log: z.array(logSchema).optional(),
  /** Checked entry by entry, only those paying a watched address (internal-transfers.ts). */
  internal_transactions: z.array(z.unknown()).optional(),
});
export type ApiTransactionInfo = z.infer<typeof transactionInfoSchema>;

/** `gettransactioninfobyblocknum`: an array (`[]` for an empty block); `{}` for num <= 0. */
export const transactionInfoListSchema = z.union([
  z.array(transactionInfoSchema),
  z
    .object({})
    .strict()
    .transform((): ApiTransactionInfo[] => []),
]);
