import { type AddressMatcher, type ObservedTransfer, ServiceUnavailableError } from "@mp/core";
import { SOL_TRANSFER_INSTRUCTION_TYPES, SYSTEM_PROGRAM_ID } from "./constants.ts";
import {
  type RpcBlockTransaction,
  type RpcFullBlock,
  type RpcInstruction,
  type RpcTokenBalance,
  systemTransferSchema,
} from "./rpc-schemas.ts";
import type { SolanaAssets } from "./solana-assets.ts";

export interface BlockLocation {
  slot: number;
  blockHash: string;
}

/**
 * Every transfer to a watched address in one jsonParsed block, in block order.
 *
 * SOL is read from system-program `transfer`/`transferWithSeed` instructions, top level
 * (`ix:<i>`) and inner (`ix:<i>.<j>`, j = place in the CPI list of top-level instruction i), not
 * from pre/post lamport deltas: an instruction names its sender, gives one deposit per payment
 * when a transaction pays the same wallet twice, and is not netted against the fee when the
 * watched wallet also pays for the transaction. (Lamports moved by other programs, e.g. rent
 * returned when a token account closes, are not deposits a customer made.)
 *
 * SPL tokens are read from `preTokenBalances`/`postTokenBalances`: a positive change of a watched
 * owner's balance of a configured mint (summed over the owner's token accounts) is a deposit to
 * that owner, at `bal:<accountIndex>` of the account that received it. This credits a payment
 * into the owner's associated token account (created in the same transaction or earlier) and into
 * any other account the owner holds, however the tokens were moved (transfer, transferChecked,
 * CPI from a program).
 *
 * Failed transactions (`meta.err` not null) are skipped whole: their instructions still list the
 * transfers they attempted. Zero amounts and self-transfers are never deposits.
 */
export function extractBlockTransfers(
  block: RpcFullBlock,
  where: BlockLocation,
  assets: SolanaAssets,
  watch: AddressMatcher,
): ObservedTransfer[] {
  const transfers: ObservedTransfer[] = [];
  for (const tx of block.transactions) {
    const meta = tx.meta;
    const txHash = tx.transaction.signatures[0];
    if (txHash === undefined) continue; // schema guarantees one; keeps the type narrow
    // Without metadata success cannot be told: refuse the block instead of guessing.
    if (meta === null) {
      throw new ServiceUnavailableError(`Solana block ${where.slot}: transaction ${txHash} has no status metadata`);
    }
    if (meta.err !== null) continue;
    const scan: TxScan = { txHash, where, assets, watch, out: transfers };
    collectSolTransfers(tx, scan);
    collectTokenDeposits(meta.preTokenBalances ?? [], meta.postTokenBalances ?? [], scan);
  }
  return transfers;
}

/** One successful transaction of the block being read, and where its deposits go. */
interface TxScan {
  txHash: string;
  where: BlockLocation;
  assets: SolanaAssets;
  watch: AddressMatcher;
  out: ObservedTransfer[];
}

/** Reads a property of a JSON value without trusting its shape (the hot path's pre-filter). */
function property(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined;
}

/**
 * The destination of a system transfer instruction, read cheaply: a block holds thousands of
 * transfers and only the few to watched addresses are then validated in full by zod.
 */
function systemTransferDestination(ix: RpcInstruction): string | undefined {
  if (ix.programId !== SYSTEM_PROGRAM_ID) return undefined;
  const type = property(ix.parsed, "type");
  if (typeof type !== "string" || !SOL_TRANSFER_INSTRUCTION_TYPES.has(type)) return undefined;
  const destination = property(property(ix.parsed, "info"), "destination");
  return typeof destination === "string" ? destination : undefined;
}

function collectSolTransfers(tx: RpcBlockTransaction, scan: TxScan): void {
  const { txHash, where, assets, watch, out } = scan;
  const visit = (ix: RpcInstruction, position: string) => {
    const destination = systemTransferDestination(ix);
    if (destination === undefined || !watch.has(destination)) return;
    const transfer = systemTransferSchema.safeParse(ix.parsed);
    if (!transfer.success) {
      throw new ServiceUnavailableError(`Solana block ${where.slot}: unreadable system transfer in ${txHash}`, {
        cause: transfer.error,
      });
    }
    const { source, lamports } = transfer.data.info;
    if (lamports <= 0n || source === destination) return;
    out.push({
      txHash,
      position,
      blockHeight: where.slot,
      blockHash: where.blockHash,
      from: source,
      to: destination,
      asset: assets.native.asset,
      contractAddress: null,
      amountRaw: lamports,
      decimals: assets.native.decimals,
    });
  };

  const inner = tx.meta?.innerInstructions ?? [];
  const innerByIndex = inner.length > 0 ? new Map(inner.map((group) => [group.index, group.instructions])) : undefined;
  tx.transaction.message.instructions.forEach((ix, i) => {
    visit(ix, `ix:${i}`);
    innerByIndex?.get(i)?.forEach((innerIx, j) => {
      visit(innerIx, `ix:${i}.${j}`);
    });
  });
}

interface OwnerChange {
  owner: string;
  mint: string;
  /** Change of the owner's balance of the mint, summed over all its accounts in the transaction. */
  net: bigint;
  /** The account that received the most (first such on a tie), named by the deposit's position. */
  accountIndex: number;
  received: bigint;
  decimals: number;
}

function collectTokenDeposits(pre: readonly RpcTokenBalance[], post: readonly RpcTokenBalance[], scan: TxScan): void {
  const { txHash, where, assets, watch, out } = scan;
  // Most transactions pay no watched owner: find out before doing any arithmetic.
  if (!post.some((b) => b.owner !== undefined && assets.tokensByMint.has(b.mint) && watch.has(b.owner))) return;

  // Per account, owner and mint (an owner change inside the transaction debits the old owner and
  // credits the new one), then per owner and mint: moving tokens between two accounts of the same
  // wallet is no deposit. Balances without an owner (validators before 1.9) cannot be attributed.
  const perAccount = new Map<
    string,
    { accountIndex: number; owner: string; mint: string; decimals: number; delta: bigint }
  >();
  const apply = (balance: RpcTokenBalance, sign: 1n | -1n) => {
    if (balance.owner === undefined || !assets.tokensByMint.has(balance.mint)) return;
    const key = `${balance.accountIndex}|${balance.owner}|${balance.mint}`;
    const entry = perAccount.get(key) ?? {
      accountIndex: balance.accountIndex,
      owner: balance.owner,
      mint: balance.mint,
      decimals: balance.uiTokenAmount.decimals,
      delta: 0n,
    };
    entry.delta += sign * BigInt(balance.uiTokenAmount.amount);
    perAccount.set(key, entry);
  };
  for (const balance of pre) apply(balance, -1n);
  for (const balance of post) apply(balance, 1n);

  const perOwner = new Map<string, OwnerChange>();
  for (const account of perAccount.values()) {
    const key = `${account.owner}|${account.mint}`;
    const change = perOwner.get(key);
    if (!change) {
      perOwner.set(key, { ...account, net: account.delta, received: account.delta });
      continue;
    }
    change.net += account.delta;
    if (account.delta > change.received) {
      change.received = account.delta;
      change.accountIndex = account.accountIndex;
      change.decimals = account.decimals;
    }
  }

  for (const change of perOwner.values()) {
    if (change.net <= 0n || !watch.has(change.owner)) continue;
    const token = assets.tokensByMint.get(change.mint);
    if (!token) continue;
    out.push({
      txHash,
      position: `bal:${change.accountIndex}`,
      blockHeight: where.slot,
      blockHash: where.blockHash,
      from: soleSender(perOwner, change),
      to: change.owner,
      asset: token.asset,
      contractAddress: change.mint,
      amountRaw: change.net,
      // The mint's own decimals (as the node reports them) give amountRaw its meaning.
      decimals: change.decimals,
    });
  }
}

/** The owner whose balance of the same mint went down, when exactly one did; else unknown. */
function soleSender(changes: ReadonlyMap<string, OwnerChange>, deposit: OwnerChange): string | null {
  const senders: string[] = [];
  for (const change of changes.values()) {
    if (change.mint === deposit.mint && change.net < 0n && change.owner !== deposit.owner) senders.push(change.owner);
  }
  return senders.length === 1 ? (senders[0] ?? null) : null;
}
