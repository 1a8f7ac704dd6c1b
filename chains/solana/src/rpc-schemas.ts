import { z } from "zod";

/**
 * zod schemas for the slice of Solana JSON-RPC responses the adapter reads. Only fields the
 * adapter uses are checked (the rest pass through unvalidated and unused), so a node adding fields
 * never breaks the scan, while a changed meaning of a used field fails loudly.
 */

/** Slots are u64 on the wire but stay far below 2^53 for the life of the chain. */
export const slotSchema = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * A u64 amount: a JSON number while it is a safe integer, or the digit string the exact-number
 * parser of @mp/rpc substitutes for longer numbers before JSON.parse can round them.
 */
export const u64Schema = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,20}$/)])
  .transform((value) => BigInt(value));

export const getSlotResultSchema = slotSchema;
export const getBlocksResultSchema = z.array(slotSchema);
export const genesisHashSchema = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "not a base58 hash");
export const signatureSchema = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, "not a base58 signature");

/**
 * An instruction as jsonParsed renders it: `{program, programId, parsed, stackHeight}` when the
 * node has a parser for the program, else `{programId, accounts, data, stackHeight}`. (`json`
 * encoding has `programIdIndex` instead of `programId`: such an instruction is never recognised.)
 */
const instructionSchema = z.object({
  programId: z.string().optional(),
  program: z.string().optional(),
  parsed: z.unknown().optional(),
});
export type RpcInstruction = z.infer<typeof instructionSchema>;

/** `parsed` of a system-program `transfer` / `transferWithSeed` instruction. */
export const systemTransferSchema = z.object({
  type: z.string(),
  info: z.object({ source: z.string(), destination: z.string(), lamports: u64Schema }),
});

const tokenBalanceSchema = z.object({
  accountIndex: z.number().int().nonnegative(),
  mint: z.string(),
  /** Recorded by validators since 1.9; absent on older blocks (such a balance is never credited). */
  owner: z.string().optional(),
  uiTokenAmount: z.object({ amount: z.string().regex(/^\d+$/), decimals: z.number().int().nonnegative() }),
});
export type RpcTokenBalance = z.infer<typeof tokenBalanceSchema>;

const transactionMetaSchema = z.object({
  /** null when the transaction succeeded; an error object or name when it failed. */
  err: z.union([z.null(), z.string(), z.record(z.string(), z.unknown())]),
  innerInstructions: z
    .array(z.object({ index: z.number().int().nonnegative(), instructions: z.array(instructionSchema) }))
    .nullish(),
  preTokenBalances: z.array(tokenBalanceSchema).nullish(),
  postTokenBalances: z.array(tokenBalanceSchema).nullish(),
});

const blockTransactionSchema = z.object({
  /** null when the node has no status for the transaction (very old ledger); see block-transfers.ts. */
  meta: transactionMetaSchema.nullable(),
  transaction: z.object({
    signatures: z.array(z.string()).min(1),
    message: z.object({ instructions: z.array(instructionSchema) }),
  }),
});
export type RpcBlockTransaction = z.infer<typeof blockTransactionSchema>;

export const blockHeaderSchema = z.object({
  blockhash: z.string().min(1),
  previousBlockhash: z.string().min(1),
  parentSlot: slotSchema,
});

export const fullBlockSchema = blockHeaderSchema.extend({ transactions: z.array(blockTransactionSchema) });
export type RpcFullBlock = z.infer<typeof fullBlockSchema>;
