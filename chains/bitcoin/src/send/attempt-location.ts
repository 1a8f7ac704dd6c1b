import type { ChainId, Logger } from "@mp/core";
import type { Database } from "@mp/db";
import { type JsonRpcClient, JsonRpcError } from "@mp/rpc";
import type { AttemptStatus, StoredAttempt } from "@mp/treasury/ports";
import { z } from "zod";
import { CORE_RPC } from "./core-refusals.ts";
import type { TransactionFinder } from "./transaction-finder.ts";
import { inputsHeight, type Outpoint, siblingHashes } from "./utxo-store.ts";

/**
 * A Bitcoin attempt's replay guard: the coins it spends, and the chain's tip when it was prepared
 * (`fromHeight`, `fromHash`): it cannot be in a block at or below that tip while that block is
 * still the chain's, so "absent from every block above it" is a bounded search.
 */
export type BitcoinGuard = {
  inputs: Outpoint[];
  fromHeight?: number;
  fromHash?: string;
};

/** The tip a new attempt is signed above (its guard's fromHeight and fromHash). */
export async function chainTip(rpc: JsonRpcClient): Promise<{ fromHeight: number; fromHash: string }> {
  const fromHeight = z
    .number()
    .int()
    .parse(await rpc.call("getblockcount"));
  const fromHash = z.string().parse(await rpc.call("getblockhash", [fromHeight]));
  return { fromHeight, fromHash };
}

/**
 * Blocks searched below the recorded tip when that tip left the chain (a reorg deeper than it), or
 * below an old attempt's inputs: a day of blocks, deeper than any reorg Bitcoin has had.
 */
export const DEEP_REORG_BLOCKS = 144;

export interface LocateContext {
  chain: ChainId;
  db: Database;
  rpc: JsonRpcClient;
  finder: TransactionFinder;
  logger: Logger;
}

export function guardInputs(attempt: StoredAttempt): Outpoint[] {
  const inputs = (attempt.guard as Partial<BitcoinGuard>).inputs;
  if (!Array.isArray(inputs)) throw new Error(`attempt ${attempt.id} has no Bitcoin inputs in its guard`);
  return inputs;
}

/**
 * What the node says of `attempt`, read only (the pipeline records it in its fenced transaction).
 * Never takes a mined transaction for a vanished one on a node without -txindex: "expired" (which
 * re-queues its sends) only when an input is gone from the chain and the mempool, and neither the
 * attempt nor any attempt sharing its inputs is in the mempool or in any block it could be in.
 */
export async function locateAttempt(ctx: LocateContext, attempt: StoredAttempt): Promise<AttemptStatus> {
  const { finder } = ctx;
  // Where it was last seen mined: found there without any index.
  if (attempt.blockHash !== null) {
    const there = await finder.inBlock(attempt.txHash, attempt.blockHash);
    if (there) return { state: "mined", blockHeight: there.height, blockHash: there.hash };
  }
  const seen = await finder.mempoolOrIndexed(attempt.txHash);
  if (seen?.where === "mempool") return { state: "pending" };
  if (seen?.where === "block") return { state: "mined", blockHeight: seen.height, blockHash: seen.hash };
  const inputs = guardInputs(attempt);
  const gone = await goneInputs(ctx.rpc, inputs);
  // Every input unspent (in the chain or the mempool): it is not in a block, nor can a sibling be.
  if (gone.length === 0) return { state: "unknown" };
  const siblings = new Set<string>();
  for (const input of gone) {
    for (const hash of await siblingHashes(ctx.db, ctx.chain, attempt.txHash, input)) siblings.add(hash);
  }
  const from = await scanFrom(ctx, attempt, inputs);
  if (from === null) {
    ctx.logger.warn(
      { chain: ctx.chain, txHash: attempt.txHash },
      "an input of a send is spent and the blocks its transaction could be in are unknown: left unknown",
    );
    return { state: "unknown" };
  }
  const found = await finder.scan([attempt.txHash, ...siblings], from);
  const mined = found.get(attempt.txHash);
  if (mined) return { state: "mined", blockHeight: mined.height, blockHash: mined.hash };
  // A sibling (replacement) spent it, mined or in the mempool: the pipeline retires this one when it lands.
  if (found.size > 0) return { state: "unknown" };
  for (const sibling of siblings) {
    if ((await finder.mempoolOrIndexed(sibling)) !== null) return { state: "unknown" };
  }
  const [first] = gone as [Outpoint];
  return {
    state: "expired",
    reason: `input ${first.txid}:${first.vout} no longer exists on the chain and no attempt of ours spent it (not in the mempool nor in any block since height ${from}; a reorg removed the transaction that created it)`,
  };
}

/** Inputs gettxout no longer has, the mempool included (spent, or their creating transaction gone). */
async function goneInputs(rpc: JsonRpcClient, inputs: readonly Outpoint[]): Promise<Outpoint[]> {
  const outs = await rpc.all(inputs.map((i) => ({ method: "gettxout", params: [i.txid, i.vout, true] })));
  return inputs.filter((_, index) => outs[index] === null);
}

/**
 * The lowest height the attempt (or a sibling sharing its guard's tip) can be mined at: above its
 * recorded tip while that block is still the chain's; else DEEP_REORG_BLOCKS lower. Attempts stored
 * before the tip was recorded: from the highest block of its inputs our records know, less the same
 * margin; null when none is known.
 */
async function scanFrom(
  ctx: LocateContext,
  attempt: StoredAttempt,
  inputs: readonly Outpoint[],
): Promise<number | null> {
  const guard = attempt.guard as Partial<BitcoinGuard>;
  if (typeof guard.fromHeight === "number") {
    if (typeof guard.fromHash === "string" && (await canonicalHash(ctx.rpc, guard.fromHeight)) === guard.fromHash) {
      return guard.fromHeight + 1;
    }
    return Math.max(guard.fromHeight - DEEP_REORG_BLOCKS, 0);
  }
  const height = await inputsHeight(ctx.db, ctx.chain, inputs);
  return height === null ? null : Math.max(height - DEEP_REORG_BLOCKS, 0);
}

async function canonicalHash(rpc: JsonRpcClient, height: number): Promise<string | null> {
  try {
    return z.string().parse(await rpc.call("getblockhash", [height]));
  } catch (error) {
    if (error instanceof JsonRpcError && error.rpcCode === CORE_RPC.INVALID_PARAMETER) return null;
    throw error;
  }
}
