import type { ChainId } from "@mp/core";
import type { Queryable } from "@mp/db";

/** A chain's row of chain_cursors, heights as numbers (NULL: not known yet). */
export interface ChainCursor {
  indexedHeight: number | null;
  headHeight: number | null;
}

const toHeight = (value: string | null): number | null => (value === null ? null : Number(value));

export async function readCursor(q: Queryable, chain: ChainId): Promise<ChainCursor> {
  const { rows } = await q.query<{ indexed_height: string | null; head_height: string | null }>(
    "SELECT indexed_height, head_height FROM chain_cursors WHERE chain = $1",
    [chain],
  );
  const row = rows[0];
  return { indexedHeight: toHeight(row?.indexed_height ?? null), headHeight: toHeight(row?.head_height ?? null) };
}

/** Records the node's latest height; creates the chain's row (nothing indexed yet) on first sight. */
export async function recordHead(q: Queryable, chain: ChainId, head: number): Promise<void> {
  await q.query(
    `INSERT INTO chain_cursors (chain, head_height, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (chain) DO UPDATE SET head_height = EXCLUDED.head_height, updated_at = now()`,
    [chain, head],
  );
}

/** The chain's indexer stopped on a configuration error: `message` says what to fix. */
export async function recordStopped(q: Queryable, chain: ChainId, message: string): Promise<void> {
  await q.query(
    `INSERT INTO chain_cursors (chain, stopped_error, stopped_at, updated_at) VALUES ($1, $2, now(), now())
     ON CONFLICT (chain) DO UPDATE SET stopped_error = EXCLUDED.stopped_error, stopped_at = now(), updated_at = now()`,
    [chain, message],
  );
}

/** The chain's node was verified: whatever stopped an earlier indexer is fixed. */
export async function clearStopped(q: Queryable, chain: ChainId): Promise<void> {
  await q.query(
    "UPDATE chain_cursors SET stopped_error = NULL, stopped_at = NULL WHERE chain = $1 AND stopped_error IS NOT NULL",
    [chain],
  );
}

/**
 * Moves the cursor from `expected` to `next`, or returns false when the cursor is no longer at
 * `expected` (another indexer moved it): the caller must then roll its transaction back.
 */
export async function moveCursor(
  q: Queryable,
  chain: ChainId,
  expected: number | null,
  next: number | null,
): Promise<boolean> {
  const result = await q.query(
    `UPDATE chain_cursors SET indexed_height = $3, updated_at = now()
      WHERE chain = $1 AND indexed_height IS NOT DISTINCT FROM $2::bigint`,
    [chain, expected, next],
  );
  return result.rowCount === 1;
}
