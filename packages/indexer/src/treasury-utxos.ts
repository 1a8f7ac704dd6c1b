import { type ChainId, normalizeAddress, type ObservedTransfer } from "@mp/core";
import type { Queryable } from "@mp/db";

/**
 * The Bitcoin treasury's coins (migrations/0095): the indexer watches the treasury addresses
 * (custody watch-set) and records an output paying one in treasury_utxos; it never becomes a
 * deposit, since no destination has that address. Repeating it (a rescan after a reorg) sets the
 * block again. Returns how many rows were written. A coin is what the data says it is, an output at a
 * `vout:<n>` position (ObservedTransfer): only a UTXO chain's reader reports those, so no family is
 * named here.
 */
export async function recordTreasuryUtxos(
  q: Queryable,
  chain: ChainId,
  transfers: readonly ObservedTransfer[],
): Promise<number> {
  if (transfers.length === 0) return 0;
  const outputs = transfers.filter((t) => t.position.startsWith("vout:") && t.amountRaw > 0n);
  if (outputs.length === 0) return 0;
  const result = await q.query(
    `INSERT INTO treasury_utxos (chain, txid, vout, address, amount_raw, source, block_height, block_hash)
     SELECT $1, t.txid, t.vout, a.address, t.amount_raw, 'indexer', t.block_height, t.block_hash
       FROM unnest($2::text[], $3::text[], $4::int[], $5::numeric[], $6::bigint[], $7::text[])
            AS t(address_key, txid, vout, amount_raw, block_height, block_hash)
       JOIN treasury_addresses a ON a.chain = $1 AND a.address_key = t.address_key
     ON CONFLICT (chain, txid, vout) DO UPDATE
        SET block_height = EXCLUDED.block_height, block_hash = EXCLUDED.block_hash, updated_at = now()`,
    [
      chain,
      outputs.map((t) => normalizeAddress(chain, t.to)),
      outputs.map((t) => t.txHash),
      outputs.map((t) => Number(t.position.slice("vout:".length))),
      outputs.map((t) => t.amountRaw.toString()),
      outputs.map((t) => t.blockHeight),
      outputs.map((t) => t.blockHash),
    ],
  );
  return result.rowCount ?? 0;
}

/**
 * A reorg above `ancestor`: the treasury's coins in those blocks lose their block (never selected
 * until a rescan finds them again), and coins spent there are no longer spent. A chain without coins
 * has no rows: the update finds none through the table's key (chain first).
 */
export async function rollBackTreasuryUtxos(q: Queryable, chain: ChainId, ancestor: number): Promise<void> {
  await q.query(
    `UPDATE treasury_utxos SET block_height = NULL, block_hash = NULL, updated_at = now()
      WHERE chain = $1 AND block_height > $2`,
    [chain, ancestor],
  );
}
