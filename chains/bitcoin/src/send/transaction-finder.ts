import { ChainMisconfiguredError } from "@mp/core";
import type { JsonRpcClient } from "@mp/rpc";
import { JsonRpcError } from "@mp/rpc";
import { z } from "zod";
import { CORE_RPC } from "./core-refusals.ts";

/** A block of the node's active chain. */
export interface BlockRef {
  height: number;
  hash: string;
}

/** Where the node has a transaction now. */
export type Found = { where: "mempool" } | ({ where: "block" } & BlockRef);

/** Blocks whose txids are kept in memory: a status pass over many attempts fetches each new block once. */
const CACHED_BLOCKS = 32;
/** getblockhash calls per batch, getblock calls per batch (a block's txid list can be large). */
const HASH_BATCH = 500;
const BLOCK_BATCH = 4;

const rawTransactionSchema = z.object({
  txid: z.string(),
  blockhash: z.string().optional(),
  confirmations: z.number().int().optional(),
  in_active_chain: z.boolean().optional(),
});
const blockTxidsSchema = z.object({ hash: z.string(), height: z.number().int(), tx: z.array(z.string()) });

/**
 * Finds our transactions on a Bitcoin Core node WITHOUT relying on `-txindex` (Core's default is
 * none, and a pruned node cannot have one): `getrawtransaction <txid>` finds only mempool
 * transactions there, and answers -5 for a mined one. A mined transaction is found with the hash
 * of its block (`getrawtransaction <txid> true <blockhash>`, which needs no index), or by reading
 * the txids of the active chain's blocks since the transaction could first be mined (`getblock
 * <hash> 1`). With `-txindex` the first answer already names the block; nothing else changes.
 */
export class TransactionFinder {
  private readonly blocks = new Map<string, Promise<Set<string>>>();

  constructor(private readonly rpc: JsonRpcClient) {}

  /** The mempool, or (a node with -txindex only) its block; null when the node says -5. */
  async mempoolOrIndexed(txid: string): Promise<Found | null> {
    const found = await this.rawTransaction([txid, true]);
    if (found === null) return null;
    if (found.blockhash === undefined || (found.confirmations ?? 0) <= 0) return { where: "mempool" };
    return this.activeBlock(found.blockhash);
  }

  /** `txid` in block `hash`, when that block holds it and is on the active chain (no index needed). */
  async inBlock(txid: string, hash: string): Promise<BlockRef | null> {
    const found = await this.rawTransaction([txid, true, hash]).catch((error: unknown) => {
      // The block itself is unknown (a stale branch the node never had) or pruned: not found there.
      if (error instanceof JsonRpcError && error.rpcCode === CORE_RPC.MISC_ERROR) return null;
      throw error;
    });
    if (found === null || found.in_active_chain === false || (found.confirmations ?? 0) <= 0) return null;
    const block = await this.activeBlock(hash);
    return block === null ? null : { height: block.height, hash: block.hash };
  }

  /**
   * Each of `txids` found in a block of the active chain at `fromHeight` or above, read from the
   * blocks' txid lists (newest first). A txid absent from the result is in none of those blocks:
   * with the mempool checked too, that proves it is not on the chain above `fromHeight`.
   */
  async scan(txids: readonly string[], fromHeight: number): Promise<Map<string, BlockRef>> {
    const wanted = new Set(txids);
    const found = new Map<string, BlockRef>();
    const head = z
      .number()
      .int()
      .parse(await this.rpc.call("getblockcount"));
    const heights: number[] = [];
    for (let h = head; h >= Math.max(fromHeight, 0); h--) heights.push(h);
    for (let i = 0; i < heights.length && found.size < wanted.size; i += HASH_BATCH) {
      const chunk = heights.slice(i, i + HASH_BATCH);
      const hashes = z
        .array(z.string())
        .parse(await this.rpc.all(chunk.map((height) => ({ method: "getblockhash", params: [height] }))));
      for (let j = 0; j < hashes.length && found.size < wanted.size; j += BLOCK_BATCH) {
        const some = hashes.slice(j, j + BLOCK_BATCH);
        const lists = await Promise.all(some.map((hash) => this.txidsOf(hash)));
        for (const [k, list] of lists.entries()) {
          for (const txid of wanted) {
            if (!found.has(txid) && list.has(txid)) {
              found.set(txid, { height: chunk[j + k] as number, hash: some[k] as string });
            }
          }
        }
      }
    }
    return found;
  }

  private async rawTransaction(params: (string | boolean)[]) {
    try {
      return rawTransactionSchema.parse(await this.rpc.call("getrawtransaction", params));
    } catch (error) {
      if (error instanceof JsonRpcError && error.rpcCode === CORE_RPC.INVALID_ADDRESS_OR_KEY) return null;
      throw error;
    }
  }

  /** The block's height when it is on the active chain (getblockheader: confirmations -1 once it left). */
  private async activeBlock(hash: string): Promise<({ where: "block" } & BlockRef) | null> {
    const header = z
      .object({ hash: z.string(), height: z.number().int(), confirmations: z.number().int() })
      .parse(await this.rpc.call("getblockheader", [hash, true]));
    if (header.confirmations <= 0) return null;
    return { where: "block", height: header.height, hash: header.hash };
  }

  /** The txids of a block, kept for the last CACHED_BLOCKS blocks asked (a block's txids never change). */
  private txidsOf(hash: string): Promise<Set<string>> {
    const cached = this.blocks.get(hash);
    if (cached) {
      this.blocks.delete(hash);
      this.blocks.set(hash, cached);
      return cached;
    }
    const loading = this.rpc.call("getblock", [hash, 1]).then(
      (answer) => new Set(blockTxidsSchema.parse(answer).tx),
      (error: unknown) => {
        if (!(error instanceof JsonRpcError && error.rpcCode === CORE_RPC.MISC_ERROR)) throw error;
        // Pruned: the blocks a send may be in must be kept (docs/chains.md "Node requirements").
        throw new ChainMisconfiguredError(
          `the Bitcoin node has pruned block ${hash}, in which a send of ours may be (${error.rpcMessage}): keep blocks back to the oldest unconfirmed send (a larger -prune)`,
          { details: { capability: "blocks", block: hash } },
        );
      },
    );
    loading.catch(() => this.blocks.delete(hash));
    this.blocks.set(hash, loading);
    while (this.blocks.size > CACHED_BLOCKS) {
      const oldest = this.blocks.keys().next().value as string;
      this.blocks.delete(oldest);
    }
    return loading;
  }
}
