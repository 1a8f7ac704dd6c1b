import { stringifyU64 } from "./json-u64.ts";
import type { Block } from "./solana-chain.ts";

export type TransactionDetails = "full" | "signatures" | "none";

export interface BlockVariant {
  details: TransactionDetails;
  rewards: boolean;
  /** maxSupportedTransactionVersion was given: each transaction carries `version`. */
  withVersion: boolean;
}

/**
 * The getBlock result for one block in the shape of the public RPC (jsonParsed transactions),
 * rendered once per variant and cached: a benchmark block of thousands of transactions is then
 * served at the speed of a socket write.
 */
export function renderBlock(block: Block, variant: BlockVariant, leader: string): Buffer {
  const key = `${variant.details}|${variant.rewards}|${variant.withVersion}`;
  const cached = block.rendered.get(key);
  if (cached !== undefined) return cached;
  let json =
    `{"blockHeight":${block.blockHeight},"blockTime":${block.blockTime},"blockhash":"${block.blockhash}",` +
    `"parentSlot":${block.parentSlot},"previousBlockhash":"${block.previousBlockhash}"`;
  if (variant.rewards) {
    const rewards =
      block.leaderReward > 0n
        ? [
            {
              pubkey: leader,
              lamports: block.leaderReward,
              postBalance: block.leaderBalance,
              rewardType: "Fee",
              commission: null,
            },
          ]
        : [];
    json += `,"rewards":${stringifyU64(rewards)},"numRewardPartitions":null`;
  }
  if (variant.details === "full") {
    const transactions = block.transactions.map((tx) => {
      if (!variant.withVersion) return `${tx.json}}`;
      return `${tx.json},"version":${tx.source.version === 0 ? "0" : '"legacy"'}}`;
    });
    json += `,"transactions":[${transactions.join(",")}]`;
  } else if (variant.details === "signatures") {
    json += `,"signatures":${JSON.stringify(block.transactions.map((tx) => tx.signature))}`;
  }
  json += "}";
  const bytes = Buffer.from(json, "utf8");
  block.rendered.set(key, bytes);
  return bytes;
}
