import type { ChainId, IndexerState } from "@mp/core";
import type { Queryable } from "@mp/db";

export type { IndexerState };

/** Every chain an indexer has looked at, from chain_cursors; lag = head - indexed. */
export async function getIndexerStates(q: Queryable): Promise<IndexerState[]> {
  const { rows } = await q.query<{
    chain: ChainId;
    head_height: string | null;
    indexed_height: string | null;
    updated_at: Date;
    stopped_error: string | null;
  }>("SELECT chain, head_height, indexed_height, updated_at, stopped_error FROM chain_cursors ORDER BY chain");
  return rows.map((row) => {
    const head = row.head_height === null ? null : Number(row.head_height);
    const indexed = row.indexed_height === null ? null : Number(row.indexed_height);
    return {
      chain: row.chain,
      headHeight: head,
      indexedHeight: indexed,
      lag: head === null || indexed === null ? null : Math.max(0, head - indexed),
      updatedAt: row.updated_at,
      stoppedError: row.stopped_error,
    };
  });
}
