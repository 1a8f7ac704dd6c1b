import type { ChainId, IndexerState } from "@mp/core";
import type { Queryable } from "@mp/db";

export type { IndexerState };

/**
 * Every chain an indexer has looked at, from chain_cursors; lag = head - indexed; the leader from
 * the chain's unexpired lease and its holder's heartbeat row.
 */
export async function getIndexerStates(q: Queryable): Promise<IndexerState[]> {
  const { rows } = await q.query<{
    chain: ChainId;
    head_height: string | null;
    indexed_height: string | null;
    updated_at: Date;
    stopped_error: string | null;
    leader_host: string | null;
    leader_pid: number | null;
    leader_since: Date | null;
    leader_epoch: string | null;
  }>(
    `SELECT c.chain, c.head_height, c.indexed_height, c.updated_at, c.stopped_error,
            h.host AS leader_host, h.pid AS leader_pid, l.acquired_at AS leader_since, l.epoch AS leader_epoch
       FROM chain_cursors c
       LEFT JOIN leases l ON l.name = 'indexer:' || c.chain AND l.expires_at > clock_timestamp()
       LEFT JOIN lease_holders h ON h.id = l.holder
      ORDER BY c.chain`,
  );
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
      leader:
        row.leader_host === null || row.leader_pid === null || row.leader_since === null
          ? null
          : { host: row.leader_host, pid: row.leader_pid, since: row.leader_since, epoch: Number(row.leader_epoch) },
    };
  });
}
