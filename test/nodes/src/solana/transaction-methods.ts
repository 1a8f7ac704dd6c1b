import bs58 from "bs58";
import { z } from "zod";
import { stringifyU64 } from "./json-u64.ts";
import { isAddress } from "./keys.ts";
import {
  LAMPORTS_PER_SIGNATURE,
  MAX_PROCESSING_AGE,
  PROGRAM_ACCOUNT_LAMPORTS,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_SPACE,
  TOKEN_PROGRAM_ID,
} from "./programs.ts";
import type { RpcAnswer, RpcContext } from "./rpc-methods.ts";
import { programErrorText } from "./runtime.ts";
import type { Block } from "./solana-chain.ts";
import { tokenAmountJson } from "./transaction-builder.ts";
import { decodeWireTransaction, WireTransactionError } from "./wire-transaction.ts";

/**
 * The RPC methods a wallet sends with, with agave's results and error shapes: sendTransaction
 * (sanitize, then preflight: signatures, blockhash, fee payer, simulation), getLatestBlockhash,
 * getBlockHeight, isBlockhashValid, getSignatureStatuses, getBalance, getAccountInfo,
 * getTokenAccountBalance, getMinimumBalanceForRentExemption. Account reads answer the tip state
 * whatever the commitment (the node keeps one state); `context.slot` says which.
 */

const MINT_SPACE = 82;
/** agave's rent: (128 bytes of account overhead + data) * 3,480 lamports per byte-year * 2 years. */
const rentExemptMinimum = (space: number) => BigInt((128 + space) * 3_480 * 2);
const NATIVE_LOADER = "NativeLoader1111111111111111111111111111111";
const BPF_LOADER = "BPFLoaderUpgradeab1e11111111111111111111111";
const U64_MAX = 18_446_744_073_709_551_615n;
const API_VERSION = "2.2.14";
const MAX_SIGNATURE_STATUSES = 256;
/** Blocks whose statuses the status cache keeps (MAX_RECENT_BLOCKHASHES): older ones need searchTransactionHistory. */
const STATUS_CACHE_BLOCKS = 300;

const commitmentSchema = z.enum(["processed", "confirmed", "finalized"]);
const addressSchema = z.string().refine(isAddress);
const sendConfigSchema = z
  .object({
    encoding: z.enum(["base58", "base64"]).optional(),
    skipPreflight: z.boolean().optional(),
    preflightCommitment: commitmentSchema.optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    minContextSlot: z.number().int().nonnegative().optional(),
  })
  .optional();
const readConfigSchema = z
  .object({
    commitment: commitmentSchema.optional(),
    encoding: z.enum(["base58", "base64", "jsonParsed"]).optional(),
    minContextSlot: z.number().int().nonnegative().optional(),
  })
  .optional();

const invalidParams = (message: string): RpcAnswer => ({ error: { code: -32602, message } });

/** agave's RpcCustomError::TransactionHistoryNotAvailable (a node without --enable-rpc-transaction-history). */
export const TRANSACTION_HISTORY_NOT_AVAILABLE: RpcAnswer = {
  error: { code: -32011, message: "Transaction history is not available from this node" },
};
/** A u64 may exceed 2^53: written with every digit, as the Rust server writes it. */
const exact = (result: unknown): RpcAnswer => ({ raw: Buffer.from(stringifyU64(result)) });

function tipAt(context: RpcContext, commitment: string | undefined): Block {
  // The JSON-RPC default commitment is finalized.
  return commitment === undefined || commitment === "finalized" ? context.chain.finalized() : context.chain.tip();
}

function withContext(context: RpcContext, value: unknown, commitment?: string): unknown {
  return { context: { apiVersion: API_VERSION, slot: tipAt(context, commitment).slot }, value };
}

/** agave's preflight failure: -32002 with the simulation result as data. */
function preflightFailure(error: unknown, logs: string[] = [], units = 0): RpcAnswer {
  return {
    error: {
      code: -32002,
      message: `Transaction simulation failed: ${transactionErrorText(error)}`,
      data: {
        accounts: null,
        err: error,
        innerInstructions: null,
        loadedAccountsDataSize: 0,
        logs,
        replacementBlockhash: null,
        returnData: null,
        unitsConsumed: units,
      },
    },
  };
}

/** TransactionError's Display in agave (what follows "Transaction simulation failed: "). */
function transactionErrorText(error: unknown): string {
  if (typeof error === "string") {
    const texts: Record<string, string> = {
      AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
      AlreadyProcessed: "This transaction has already been processed",
      BlockhashNotFound: "Blockhash not found",
      InsufficientFundsForFee: "Insufficient funds for fee",
    };
    return texts[error] ?? error;
  }
  if (typeof error === "object" && error !== null) {
    if ("InstructionError" in error) {
      const [index, inner] = (error as { InstructionError: [number, unknown] }).InstructionError;
      return `Error processing Instruction ${index}: ${programErrorText(inner)}`;
    }
    if ("InsufficientFundsForRent" in error) {
      const { account_index } = (error as { InsufficientFundsForRent: { account_index: number } })
        .InsufficientFundsForRent;
      return `Transaction results in an account (${account_index}) with insufficient funds for rent`;
    }
  }
  return JSON.stringify(error);
}

export function sendTransaction(context: RpcContext, args: unknown[]): RpcAnswer {
  const encoded = z.string().safeParse(args[0]);
  const config = sendConfigSchema.safeParse(args[1]);
  if (!encoded.success || !config.success) return invalidParams("Invalid params: invalid transaction or config");
  const encoding = config.data?.encoding ?? "base58";
  let wire: Uint8Array;
  try {
    wire = encoding === "base64" ? decodeBase64(encoded.data) : bs58.decode(encoded.data);
  } catch (error) {
    return invalidParams(`invalid ${encoding} encoding: ${error instanceof Error ? error.message : String(error)}`);
  }
  let decoded: ReturnType<typeof decodeWireTransaction>;
  try {
    decoded = decodeWireTransaction(wire, { routerProgramId: context.routerProgramId });
  } catch (error) {
    if (error instanceof WireTransactionError) return { error: { code: error.rpcCode, message: error.message } };
    throw error;
  }
  const { tx, signaturesValid } = decoded;
  const chain = context.chain;

  if (!config.data?.skipPreflight) {
    if (!signaturesValid) return { error: { code: -32003, message: "Transaction signature verification failure" } };
    // The bank's order: blockhash age first, then the status cache.
    if (chain.lastValidBlockHeight(tx.recentBlockhash) === undefined) return preflightFailure("BlockhashNotFound");
    if (chain.transaction(tx.signature)) return preflightFailure("AlreadyProcessed");
    const fee = LAMPORTS_PER_SIGNATURE * BigInt(tx.accounts.filter((a) => a.signer).length);
    const payerLamports = chain.state.lamports(tx.payer);
    if (payerLamports === 0n) return preflightFailure("AccountNotFound");
    if (payerLamports < fee) return preflightFailure("InsufficientFundsForFee");
    const outcome = chain.simulate(tx);
    if (outcome?.failed) return preflightFailure(outcome.error, outcome.logs, outcome.units);
  }
  // Past the RPC, the leader's sigverify drops a badly signed transaction without a word; the
  // bank refuses a duplicate, an expired blockhash or an unfunded payer when the block is made.
  if (signaturesValid && !context.dropping() && !chain.isPending(tx.signature)) chain.enqueue(tx);
  return { result: tx.signature };
}

function decodeBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error("not base64");
  return Buffer.from(text, "base64");
}

export function getLatestBlockhash(context: RpcContext, args: unknown[]): RpcAnswer {
  const config = readConfigSchema.safeParse(args[0]);
  if (!config.success) return invalidParams("Invalid params: invalid config");
  const block = tipAt(context, config.data?.commitment);
  const lastValidBlockHeight = block.blockHeight + MAX_PROCESSING_AGE;
  return {
    result: {
      context: { apiVersion: API_VERSION, slot: block.slot },
      value: { blockhash: block.blockhash, lastValidBlockHeight },
    },
  };
}

export function getBlockHeight(context: RpcContext, args: unknown[]): RpcAnswer {
  const config = readConfigSchema.safeParse(args[0]);
  if (!config.success) return invalidParams("Invalid params: invalid config");
  return { result: tipAt(context, config.data?.commitment).blockHeight };
}

export function isBlockhashValid(context: RpcContext, args: unknown[]): RpcAnswer {
  const hash = z.string().safeParse(args[0]);
  const config = readConfigSchema.safeParse(args[1]);
  if (!hash.success || !config.success) return invalidParams("Invalid params: invalid blockhash or config");
  const valid = context.chain.lastValidBlockHeight(hash.data) !== undefined;
  return { result: withContext(context, valid, config.data?.commitment ?? "processed") };
}

export function getSignatureStatuses(context: RpcContext, args: unknown[]): RpcAnswer {
  const signatures = z.array(z.string()).safeParse(args[0]);
  const config = z.object({ searchTransactionHistory: z.boolean().optional() }).optional().safeParse(args[1]);
  if (!signatures.success || !config.success) return invalidParams("Invalid params: invalid signatures or config");
  if (config.data?.searchTransactionHistory && !context.transactionHistory) return TRANSACTION_HISTORY_NOT_AVAILABLE;
  if (signatures.data.length > MAX_SIGNATURE_STATUSES) {
    return invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
  }
  const chain = context.chain;
  const tip = chain.tip();
  const finalized = chain.finalized();
  const value = signatures.data.map((signature) => {
    const found = chain.transaction(signature);
    const block = found && chain.block(found.slot);
    if (!found || !block) return null;
    if (!config.data?.searchTransactionHistory && tip.blockHeight - block.blockHeight > STATUS_CACHE_BLOCKS)
      return null;
    const rooted = block.slot <= finalized.slot;
    const err = found.included.failed ? found.included.error : null;
    return {
      confirmationStatus: rooted ? "finalized" : "confirmed",
      confirmations: rooted ? null : tip.blockHeight - block.blockHeight,
      err,
      slot: found.slot,
      status: err === null ? { Ok: null } : { Err: err },
    };
  });
  return { result: { context: { apiVersion: API_VERSION, slot: tip.slot }, value } };
}

export function getBalance(context: RpcContext, args: unknown[]): RpcAnswer {
  const address = addressSchema.safeParse(args[0]);
  const config = readConfigSchema.safeParse(args[1]);
  if (!address.success) return invalidParams("Invalid param: Invalid");
  if (!config.success) return invalidParams("Invalid params: invalid config");
  return exact(withContext(context, context.chain.state.lamports(address.data), config.data?.commitment));
}

export function getMinimumBalanceForRentExemption(_context: RpcContext, args: unknown[]): RpcAnswer {
  const space = z
    .number()
    .int()
    .nonnegative()
    .max(10_485_760)
    .safeParse(args[0] ?? 0);
  if (!space.success) return invalidParams("Invalid params: data length must be a usize");
  return exact(rentExemptMinimum(space.data));
}

export function getTokenAccountBalance(context: RpcContext, args: unknown[]): RpcAnswer {
  const address = addressSchema.safeParse(args[0]);
  const config = readConfigSchema.safeParse(args[1]);
  if (!address.success) return invalidParams("Invalid param: Invalid");
  if (!config.success) return invalidParams("Invalid params: invalid config");
  const account = context.chain.state.tokenAccount(address.data);
  if (!account) {
    if (context.chain.state.lamports(address.data) === 0n)
      return invalidParams("Invalid param: could not find account");
    return invalidParams("Invalid param: not a Token account");
  }
  const decimals = context.tokenDecimals(account.mint) ?? 0;
  return { result: withContext(context, tokenAmountJson(account.amount, decimals), config.data?.commitment) };
}

export function getAccountInfo(context: RpcContext, args: unknown[]): RpcAnswer {
  const address = addressSchema.safeParse(args[0]);
  const config = readConfigSchema.safeParse(args[1]);
  if (!address.success) return invalidParams("Invalid param: Invalid");
  if (!config.success) return invalidParams("Invalid params: invalid config");
  const encoding = config.data?.encoding ?? "base58";
  const account = accountOf(context, address.data);
  if (!account) return { result: withContext(context, null, config.data?.commitment) };
  const data =
    encoding === "jsonParsed" && account.parsed !== undefined
      ? { parsed: account.parsed, program: "spl-token", space: account.data.length }
      : encoding === "base58"
        ? [bs58.encode(account.data), "base58"]
        : [Buffer.from(account.data).toString("base64"), "base64"];
  return exact(
    withContext(
      context,
      {
        data,
        executable: account.executable,
        lamports: account.lamports,
        owner: account.owner,
        rentEpoch: U64_MAX,
        space: account.data.length,
      },
      config.data?.commitment,
    ),
  );
}

interface AccountView {
  lamports: bigint;
  owner: string;
  executable: boolean;
  data: Uint8Array;
  /** The jsonParsed form, for token accounts and mints. */
  parsed?: unknown;
}

/** An account as the runtime stores it: the SPL layouts for token accounts and mints. */
function accountOf(context: RpcContext, address: string): AccountView | undefined {
  const state = context.chain.state;
  const lamports = state.lamports(address);
  const token = state.tokenAccount(address);
  if (token) {
    const decimals = context.tokenDecimals(token.mint) ?? 0;
    return {
      lamports,
      owner: TOKEN_PROGRAM_ID,
      executable: false,
      data: tokenAccountData(token.mint, token.owner, token.amount),
      parsed: {
        info: {
          isNative: false,
          mint: token.mint,
          owner: token.owner,
          state: "initialized",
          tokenAmount: tokenAmountJson(token.amount, decimals),
        },
        type: "account",
      },
    };
  }
  const decimals = context.tokenDecimals(address);
  if (decimals !== undefined) {
    const supply = state.tokenSupply(address);
    return {
      lamports,
      owner: TOKEN_PROGRAM_ID,
      executable: false,
      data: mintData(supply, decimals),
      parsed: {
        info: { decimals, freezeAuthority: null, isInitialized: true, mintAuthority: null, supply: supply.toString() },
        type: "mint",
      },
    };
  }
  if (address === context.routerProgramId || PROGRAM_ACCOUNT_LAMPORTS[address] !== undefined) {
    const owner = address === SYSTEM_PROGRAM_ID ? NATIVE_LOADER : BPF_LOADER;
    return { lamports, owner, executable: true, data: new Uint8Array() };
  }
  if (lamports === 0n) return undefined;
  return { lamports, owner: SYSTEM_PROGRAM_ID, executable: false, data: new Uint8Array() };
}

/** spl-token's Account layout (165 bytes): mint, owner, amount, delegate, state, is_native, delegated_amount, close_authority. */
function tokenAccountData(mint: string, owner: string, amount: bigint): Uint8Array {
  const data = Buffer.alloc(TOKEN_ACCOUNT_SPACE);
  data.set(bs58.decode(mint), 0);
  data.set(bs58.decode(owner), 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1; // AccountState::Initialized (after the 36-byte COption<Pubkey> delegate)
  return data;
}

/** spl-token's Mint layout (82 bytes): mint_authority, supply, decimals, is_initialized, freeze_authority. */
function mintData(supply: bigint, decimals: number): Uint8Array {
  const data = Buffer.alloc(MINT_SPACE);
  data.writeBigUInt64LE(supply, 36);
  data[44] = decimals;
  data[45] = 1;
  return data;
}
