import { JsonRpcError } from "@mp/rpc";
import { BroadcastRefusedError, type StoredAttempt } from "@mp/treasury/ports";
import type { BitcoinSenderContext } from "./bitcoin-sender-context.ts";
import { BroadcastRejectedError } from "./broadcast-rejected-error.ts";
import { CORE_RPC, refusedForGood } from "./core-refusals.ts";

/**
 * Sends the signed transaction. Already in the chain, or its inputs spent by this very transaction,
 * is success; Core's refusals are sorted into for good (BroadcastRefusedError) or to retry.
 */
export async function broadcastBitcoin(ctx: BitcoinSenderContext, attempt: StoredAttempt): Promise<void> {
  const { chain } = ctx;
  try {
    await ctx.rpc.call("sendrawtransaction", [attempt.raw]);
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error;
    // Already mined: nothing to send.
    if (error.rpcCode === CORE_RPC.TRANSACTION_ALREADY_IN_CHAIN) return;
    // Inputs spent: by this very transaction (in a block, or the mempool) is success; by a
    // sibling, the pipeline sees that one land. Found by its block: no -txindex needed.
    if (error.rpcCode === CORE_RPC.TRANSACTION_ERROR) {
      const where = await ctx.locate(attempt);
      if (where.state === "mined" || where.state === "pending") return;
    }
    if (refusedForGood(error.rpcCode, error.rpcMessage)) {
      throw new BroadcastRefusedError(`${chain} node refused ${attempt.txHash}: ${error.message}`, attempt.txHash);
    }
    throw new BroadcastRejectedError(`${chain} node refused ${attempt.txHash}: ${error.message}`, {
      txHash: attempt.txHash,
      rpcCode: error.rpcCode,
    });
  }
}
