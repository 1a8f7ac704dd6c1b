import { z } from "zod";
import { type BlockVariant, renderBlock } from "./block-rendering.ts";
import { isAddress } from "./keys.ts";
import { MAX_GET_BLOCKS_RANGE } from "./programs.ts";
import type { Block, SolanaChain } from "./solana-chain.ts";
import {
  getAccountInfo,
  getBalance,
  getBlockHeight,
  getLatestBlockhash,
  getMinimumBalanceForRentExemption,
  getSignatureStatuses,
  getTokenAccountBalance,
  isBlockhashValid,
  sendTransaction,
  TRANSACTION_HISTORY_NOT_AVAILABLE,
} from "./transaction-methods.ts";

/** What a method answers: a value to serialise, pre-rendered UTF-8 JSON, or a JSON-RPC error. */
export type RpcAnswer =
  | { result: unknown }
  | { raw: Buffer }
  | { error: { code: number; message: string; data?: unknown } };

export interface RpcContext {
  chain: SolanaChain;
  leader: string;
  /** Queues a faucet transfer of lamports to the address and returns its signature. */
  airdrop(to: string, lamports: bigint): string;
  routerProgramId: string;
  /** Decimals of one of the node's mints; undefined for any other address. */
  tokenDecimals(mint: string): number | undefined;
  /** Whether sent transactions are being lost before they reach a leader (a test control). */
  dropping(): boolean;
  /** agave's enable_rpc_transaction_history: off, the history methods answer -32011. */
  transactionHistory: boolean;
}

const commitmentSchema = z.enum(["processed", "confirmed", "finalized"]);
const commitmentConfigSchema = z.object({ commitment: commitmentSchema.optional() }).optional();
const slotSchema = z.number().int().nonnegative();

/** The config object; a bare encoding string is the deprecated short form of it. */
const getBlockConfigSchema = z.preprocess(
  (value) => (typeof value === "string" ? { encoding: value } : (value ?? {})),
  z.object({
    commitment: commitmentSchema.optional(),
    encoding: z.enum(["json", "jsonParsed", "base58", "base64", "binary"]).optional(),
    transactionDetails: z.enum(["full", "accounts", "signatures", "none"]).optional(),
    rewards: z.boolean().optional(),
    maxSupportedTransactionVersion: z.number().int().nonnegative().optional(),
  }),
);

const invalidParams = (message: string): RpcAnswer => ({
  error: { code: -32602, message: `Invalid params: ${message}` },
});

type RpcMethod = (context: RpcContext, args: unknown[]) => RpcAnswer;

/**
 * The JSON-RPC subset of the Solana adapter and faucet, with the results and error codes of agave's
 * RPC server: getSlot, getBlocks, getBlock (jsonParsed; transactionDetails full/signatures/none),
 * getFirstAvailableBlock, getGenesisHash, requestAirdrop, and the sending methods of
 * transaction-methods.ts.
 */
const METHODS: ReadonlyMap<string, RpcMethod> = new Map<string, RpcMethod>([
  ["getSlot", getSlot],
  ["getBlocks", getBlocks],
  ["getBlock", getBlock],
  ["getFirstAvailableBlock", (context) => ({ result: context.chain.firstAvailableBlock() })],
  ["getGenesisHash", (context) => ({ result: context.chain.genesisHash() })],
  ["requestAirdrop", requestAirdrop],
  ["sendTransaction", sendTransaction],
  ["getLatestBlockhash", getLatestBlockhash],
  ["getBlockHeight", getBlockHeight],
  ["isBlockhashValid", isBlockhashValid],
  ["getSignatureStatuses", getSignatureStatuses],
  ["getBalance", getBalance],
  ["getAccountInfo", getAccountInfo],
  ["getTokenAccountBalance", getTokenAccountBalance],
  ["getMinimumBalanceForRentExemption", getMinimumBalanceForRentExemption],
]);

/** Answers one call of a method of METHODS. */
export function callRpcMethod(context: RpcContext, method: string, params: unknown): RpcAnswer {
  const args = params === undefined ? [] : params;
  if (!Array.isArray(args)) return invalidParams("params must be an array");
  const handler = METHODS.get(method);
  if (!handler) return { error: { code: -32601, message: "Method not found" } };
  return handler(context, args);
}

/** The newest block visible at a commitment (`processed` and `confirmed` see the tip). */
function tipAt(chain: SolanaChain, commitment: string | undefined): Block {
  return commitment === "finalized" ? chain.finalized() : chain.tip();
}

function getSlot(context: RpcContext, args: unknown[]): RpcAnswer {
  const config = commitmentConfigSchema.safeParse(args[0]);
  if (!config.success) return invalidParams("invalid config");
  return { result: tipAt(context.chain, config.data?.commitment).slot };
}

function getBlocks(context: RpcContext, args: unknown[]): RpcAnswer {
  const start = slotSchema.safeParse(args[0]);
  if (!start.success) return invalidParams("start slot must be a u64");
  // The end slot is optional; a config object may take its place.
  const endGiven = typeof args[1] === "number";
  const end = endGiven ? slotSchema.safeParse(args[1]) : { success: true as const, data: undefined };
  const config = commitmentConfigSchema.safeParse(endGiven ? args[2] : args[1]);
  if (!end.success || !config.success) return invalidParams("invalid end slot or config");
  if (config.data?.commitment === "processed")
    return invalidParams("Method does not support commitment below `confirmed`");
  const tip = tipAt(context.chain, config.data?.commitment).slot;
  const last = Math.min(end.data ?? tip, tip);
  if (end.data !== undefined && end.data - start.data > MAX_GET_BLOCKS_RANGE) {
    return { error: { code: -32602, message: `Slot range too large; max ${MAX_GET_BLOCKS_RANGE}` } };
  }
  return { result: start.data > last ? [] : context.chain.blockSlots(start.data, last) };
}

function getBlock(context: RpcContext, args: unknown[]): RpcAnswer {
  if (!context.transactionHistory) return TRANSACTION_HISTORY_NOT_AVAILABLE;
  const slot = slotSchema.safeParse(args[0]);
  if (!slot.success) return invalidParams("slot must be a u64");
  const parsed = getBlockConfigSchema.safeParse(args[1]);
  if (!parsed.success) return invalidParams("invalid config");
  const config = parsed.data;
  const commitment = config.commitment;
  if (commitment === "processed") return invalidParams("Method does not support commitment below `confirmed`");
  const details = config.transactionDetails ?? "full";
  const encoding = config.encoding ?? "json";
  if (details === "accounts") return invalidParams("the Solana test node does not serve transactionDetails=accounts");
  if (details === "full" && encoding !== "jsonParsed") {
    return invalidParams("the Solana test node serves full transactions only with encoding jsonParsed");
  }

  if (slot.data > tipAt(context.chain, commitment).slot) {
    return { error: { code: -32004, message: `Block not available for slot ${slot.data}` } };
  }
  const block = context.chain.block(slot.data);
  if (context.chain.isPurged(slot.data)) {
    // agave's JSON_RPC_SERVER_ERROR_BLOCK_CLEANED_UP.
    const first = context.chain.firstAvailableBlock();
    return {
      error: {
        code: -32001,
        message: `Block ${slot.data} cleaned up, does not exist on node. First available block: ${first}`,
      },
    };
  }
  if (!block) {
    return {
      error: {
        code: -32007,
        message: `Slot ${slot.data} was skipped, or missing due to ledger jump to recent snapshot`,
      },
    };
  }
  const maxVersion = config.maxSupportedTransactionVersion;
  if (maxVersion === undefined && details !== "none" && block.transactions.some((tx) => tx.source.version === 0)) {
    return {
      error: {
        code: -32015,
        message:
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      },
    };
  }
  const variant: BlockVariant = {
    details,
    rewards: config.rewards ?? true,
    withVersion: maxVersion !== undefined,
  };
  return { raw: renderBlock(block, variant, context.leader) };
}

function requestAirdrop(context: RpcContext, args: unknown[]): RpcAnswer {
  const to = z.string().refine(isAddress).safeParse(args[0]);
  if (!to.success) return invalidParams("Invalid pubkey");
  const lamports = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).safeParse(args[1]);
  if (!lamports.success) return invalidParams("lamports must be a positive u64");
  const config = commitmentConfigSchema.safeParse(args[2]);
  if (!config.success) return invalidParams("invalid config");
  return { result: context.airdrop(to.data, BigInt(lamports.data)) };
}
