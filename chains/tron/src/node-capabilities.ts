import { type ChainId, ChainMisconfiguredError } from "@mp/core";
import { transactionInfoListSchema } from "./api-schemas.ts";
import { MAX_BLOCKS_PER_LIMIT_NEXT } from "./constants.ts";
import type { TronHttpClient } from "./http-api-client.ts";
import { headBlockNumber, recentBlocks } from "./recent-blocks.ts";

/** Recent blocks looked through for one holding a transaction (on mainnet the newest one does). */
const LOOK_BACK = MAX_BLOCKS_PER_LIMIT_NEXT;
/** Blocks per getblockbylimitnext here: full mainnet blocks are large, and the newest usually suffices. */
const PER_CALL = 5;

/**
 * What the service cannot work without on a Tron full node, checked when it starts: the receipts
 * of transactions (TransactionInfo; java-tron's `storage.transHistory.switch`, on by default). The
 * indexer finds TRC-20 deposits in the logs of gettransactioninfobyblocknum, and the sender
 * learns that its transaction landed from gettransactioninfobyid; a node that keeps none answers
 * [] and {} for every transaction, so deposits would be missed and a landed send taken for
 * expired. Checked on the newest recent block that holds a transaction (none yet on a fresh
 * chain: nothing to judge). Throws ChainMisconfiguredError naming the capability.
 */
export async function verifyTronNode(api: TronHttpClient, chain: ChainId): Promise<void> {
  const head = await headBlockNumber(api);
  const num = await newestWithTransactions(api, head);
  if (num === null) return;
  const infos = await api.post("/wallet/gettransactioninfobyblocknum", { num }, transactionInfoListSchema);
  if (infos.length === 0) {
    throw new ChainMisconfiguredError(
      `the Tron node at CHAINS_CONFIG.${chain}.rpcUrl keeps no transaction receipts (gettransactioninfobyblocknum answers [] for block ${num}, which holds transactions): TRC-20 deposits and the outcome of our sends are read from them; enable storage.transHistory.switch (java-tron's default) or use another node`,
      { details: { chain, capability: "transaction_info", block: num } },
    );
  }
}

/** The newest of the last LOOK_BACK blocks (genesis excluded) that holds a transaction; null if none does. */
async function newestWithTransactions(api: TronHttpClient, head: number): Promise<number | null> {
  const lowest = Math.max(1, head - LOOK_BACK + 1);
  for (let end = head; end >= lowest; end -= PER_CALL) {
    const start = Math.max(lowest, end - PER_CALL + 1);
    const numbers = (await recentBlocks(api, start, end))
      .filter((b) => (b.transactions?.length ?? 0) > 0)
      .map((b) => b.block_header.raw_data.number);
    if (numbers.length > 0) return Math.max(...numbers);
  }
  return null;
}
