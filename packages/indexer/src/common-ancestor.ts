import type { BlockHeader, ChainId, Logger } from "@mp/core";
import type { Queryable } from "@mp/db";
import { type StoredBlock, storedWindow } from "./block-store.ts";

/**
 * The highest stored block the node still has with the same hash: where the chain we indexed and
 * the node's chain part. Reads the node's headers over the stored window in one call. When no
 * stored block matches (a reorg deeper than the window, or a node reset), answers one below the
 * window's lowest block, so everything the window covered is rolled back and scanned again.
 */
export async function findCommonAncestor(options: {
  q: Queryable;
  chain: ChainId;
  head: number;
  headers: (from: number, to: number) => Promise<BlockHeader[]>;
  logger: Logger;
}): Promise<number> {
  const { q, chain, head, logger } = options;
  const stored: StoredBlock[] = await storedWindow(q, chain);
  const lowest = stored.at(-1);
  const highest = stored[0];
  if (!lowest || !highest) throw new Error(`no stored blocks of ${chain} to find a common ancestor in`);
  const onNode = new Map<number, string>();
  if (lowest.height <= head) {
    for (const header of await options.headers(lowest.height, Math.min(highest.height, head))) {
      onNode.set(header.height, header.hash);
    }
  }
  const match = stored.find((block) => onNode.get(block.height) === block.hash);
  if (match) return match.height;
  logger.error(
    { chain, windowFrom: lowest.height, windowTo: highest.height },
    "reorg deeper than the stored block window: rescanning the whole window",
  );
  return lowest.height - 1;
}
