import type { BlockHeader, ChainId } from "@mp/core";
import type { Queryable } from "@mp/db";

/** A processed block as chain_blocks keeps it, for reorg checks. */
export interface StoredBlock {
  height: number;
  hash: string;
}

const toBlock = (row: { height: string; hash: string }): StoredBlock => ({
  height: Number(row.height),
  hash: row.hash,
});

/** The highest stored block (the tip of what was indexed), if any. */
export async function storedTip(q: Queryable, chain: ChainId): Promise<StoredBlock | undefined> {
  const { rows } = await q.query<{ height: string; hash: string }>(
    "SELECT height, hash FROM chain_blocks WHERE chain = $1 ORDER BY height DESC LIMIT 1",
    [chain],
  );
  return rows[0] && toBlock(rows[0]);
}

/** The highest stored block below `height`: the expected parent of the block at `height`. */
export async function storedBlockBelow(q: Queryable, chain: ChainId, height: number): Promise<StoredBlock | undefined> {
  const { rows } = await q.query<{ height: string; hash: string }>(
    "SELECT height, hash FROM chain_blocks WHERE chain = $1 AND height < $2 ORDER BY height DESC LIMIT 1",
    [chain, height],
  );
  return rows[0] && toBlock(rows[0]);
}

/** Every stored block of the chain, highest first. */
export async function storedWindow(q: Queryable, chain: ChainId): Promise<StoredBlock[]> {
  const { rows } = await q.query<{ height: string; hash: string }>(
    "SELECT height, hash FROM chain_blocks WHERE chain = $1 ORDER BY height DESC",
    [chain],
  );
  return rows.map(toBlock);
}

export async function insertBlocks(q: Queryable, chain: ChainId, headers: readonly BlockHeader[]): Promise<void> {
  if (headers.length === 0) return;
  await q.query(
    `INSERT INTO chain_blocks (chain, height, hash, parent_hash)
     SELECT $1, h.height, h.hash, h.parent_hash
       FROM unnest($2::bigint[], $3::text[], $4::text[]) AS h(height, hash, parent_hash)
     ON CONFLICT (chain, height) DO UPDATE SET hash = EXCLUDED.hash, parent_hash = EXCLUDED.parent_hash`,
    [chain, headers.map((h) => h.height), headers.map((h) => h.hash), headers.map((h) => h.parentHash)],
  );
}

export async function deleteBlocksAbove(q: Queryable, chain: ChainId, height: number): Promise<void> {
  await q.query("DELETE FROM chain_blocks WHERE chain = $1 AND height > $2", [chain, height]);
}

/** Drops blocks at or below `height`, always keeping the highest stored one (the next parent check needs it). */
export async function pruneBlocks(q: Queryable, chain: ChainId, height: number): Promise<void> {
  await q.query(
    `DELETE FROM chain_blocks WHERE chain = $1 AND height <= $2
        AND height < (SELECT max(height) FROM chain_blocks WHERE chain = $1)`,
    [chain, height],
  );
}
