import type { ChainId } from "@mp/core";
import type { Queryable } from "@mp/db";

/**
 * The Bitcoin treasury's coins as the sender uses them (migrations/0095 treasury_utxos): selection
 * of confirmed, unreserved coins, reservation in the sign transaction (the replay guard), release of
 * coins whose every attempt expired or failed, and the sender's own change outputs once mined.
 */

export interface TreasuryCoin {
  txid: string;
  vout: number;
  amountRaw: bigint;
  address: string;
  /** Derivation path of the key that spends it (treasury_addresses.path). */
  path: string;
}

export interface Outpoint {
  txid: string;
  vout: number;
}

interface CoinRow {
  txid: string;
  vout: number;
  amount_raw: string;
  address: string;
  path: string;
}

const toCoin = (row: CoinRow): TreasuryCoin => ({
  txid: row.txid,
  vout: Number(row.vout),
  amountRaw: BigInt(row.amount_raw),
  address: row.address,
  path: row.path,
});

/**
 * A coin `u` reserved by attempts that can no longer land: no attempt spending it is still signed,
 * broadcast or mined (all expired or failed). A reservation whose attempt row does not exist yet
 * (its sign transaction has not committed) is not dead.
 */
const DEAD_RESERVATION = `u.reserved_by IS NOT NULL
        AND EXISTS (SELECT 1 FROM treasury_attempts a WHERE a.chain = u.chain AND a.tx_hash = u.reserved_by)
        AND NOT EXISTS (
          SELECT 1 FROM treasury_attempts a
           WHERE a.chain = u.chain AND a.state IN ('signed', 'broadcast', 'mined')
             AND a.guard -> 'inputs' @> jsonb_build_array(jsonb_build_object('txid', u.txid, 'vout', u.vout)))`;

/** Frees the coins of dead reservations (DEAD_RESERVATION), in sign()'s transaction before it selects. */
export async function releaseDeadReservations(q: Queryable, chain: ChainId): Promise<number> {
  const result = await q.query(
    `UPDATE treasury_utxos u SET reserved_by = NULL, updated_at = now()
      WHERE u.chain = $1 AND u.spent_by IS NULL AND ${DEAD_RESERVATION}`,
    [chain],
  );
  return result.rowCount ?? 0;
}

/**
 * Free in prepare()'s dry run (no write there): not reserved, or reserved by attempts that can no
 * longer land, which sign() releases first. Without the second, a treasury whose coins a refused or
 * expired payout still names would wait for funds until some other send signed.
 */
const FREE_TO_PREPARE = `(u.reserved_by IS NULL OR (${DEAD_RESERVATION}))`;

/**
 * Spendable coins, largest first: in a block, not reserved, not spent. With `lock` they are locked
 * for the caller's transaction (sign); without, a dry run (prepare).
 */
export async function freeCoins(
  q: Queryable,
  chain: ChainId,
  limit: number,
  options: { lock: boolean },
): Promise<TreasuryCoin[]> {
  const { rows } = await q.query<CoinRow>(
    `SELECT u.txid, u.vout, u.amount_raw::text AS amount_raw, u.address, a.path
       FROM treasury_utxos u
       JOIN treasury_addresses a ON a.chain = u.chain AND a.address = u.address
      WHERE u.chain = $1 AND ${options.lock ? "u.reserved_by IS NULL" : FREE_TO_PREPARE}
        AND u.spent_by IS NULL AND u.block_height IS NOT NULL
      ORDER BY u.amount_raw DESC, u.txid, u.vout
      LIMIT $2
      ${options.lock ? "FOR UPDATE OF u SKIP LOCKED" : ""}`,
    [chain, limit],
  );
  return rows.map(toCoin);
}

/** What the free coins add up to (prepare's funds check, outside any transaction). */
export async function freeTotal(q: Queryable, chain: ChainId): Promise<bigint> {
  const { rows } = await q.query<{ total: string }>(
    `SELECT coalesce(sum(u.amount_raw), 0)::text AS total FROM treasury_utxos u
      WHERE u.chain = $1 AND ${FREE_TO_PREPARE} AND u.spent_by IS NULL AND u.block_height IS NOT NULL`,
    [chain],
  );
  return BigInt(rows[0]?.total ?? "0");
}

/** What the treasury holds: every coin in a block not yet spent in one (reserved ones included). */
export async function heldTotal(q: Queryable, chain: ChainId): Promise<bigint> {
  const { rows } = await q.query<{ total: string }>(
    `SELECT coalesce(sum(amount_raw), 0)::text AS total FROM treasury_utxos
      WHERE chain = $1 AND spent_by IS NULL AND block_height IS NOT NULL`,
    [chain],
  );
  return BigInt(rows[0]?.total ?? "0");
}

/** The given coins with their keys' paths (a replacement re-signs the inputs of the attempt it replaces). */
export async function coinsAt(q: Queryable, chain: ChainId, inputs: readonly Outpoint[]): Promise<TreasuryCoin[]> {
  const { rows } = await q.query<CoinRow>(
    `SELECT u.txid, u.vout, u.amount_raw::text AS amount_raw, u.address, a.path
       FROM unnest($2::text[], $3::int[]) WITH ORDINALITY AS i(txid, vout, ord)
       JOIN treasury_utxos u ON u.chain = $1 AND u.txid = i.txid AND u.vout = i.vout
       JOIN treasury_addresses a ON a.chain = u.chain AND a.address = u.address
      ORDER BY i.ord`,
    [chain, inputs.map((i) => i.txid), inputs.map((i) => i.vout)],
  );
  return rows.map(toCoin);
}

export async function reserveCoins(q: Queryable, chain: ChainId, inputs: readonly Outpoint[], txHash: string) {
  const result = await q.query(
    `UPDATE treasury_utxos u SET reserved_by = $4, updated_at = now()
       FROM unnest($2::text[], $3::int[]) AS i(txid, vout)
      WHERE u.chain = $1 AND u.txid = i.txid AND u.vout = i.vout AND u.reserved_by IS NULL`,
    [chain, inputs.map((i) => i.txid), inputs.map((i) => i.vout), txHash],
  );
  if ((result.rowCount ?? 0) !== inputs.length) {
    throw new Error(`treasury coins of ${chain} were reserved by another attempt while signing ${txHash}`);
  }
}

/** The next unused change index (branch 1), from the change addresses already written. */
export async function nextChangeIndex(q: Queryable, chain: ChainId): Promise<number> {
  const { rows } = await q.query<{ next: number }>(
    `SELECT coalesce(max(split_part(path, '/', 6)::int) + 1, 0)::int AS next
       FROM treasury_addresses WHERE chain = $1 AND purpose = 'change'`,
    [chain],
  );
  return Number(rows[0]?.next ?? 0);
}

export async function insertTreasuryAddress(
  q: Queryable,
  chain: ChainId,
  purpose: "send" | "change",
  key: { path: string; address: string },
): Promise<void> {
  await q.query(
    `INSERT INTO treasury_addresses (chain, purpose, path, address, address_key) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (chain, address_key) DO NOTHING`,
    [chain, purpose, key.path, key.address],
  );
}

/**
 * Our attempt `txid` is in block `height`: its inputs are spent there and its change output (if it
 * has one) is a coin. Idempotent; the indexer records the same change output from the block.
 */
export async function recordMined(
  q: Queryable,
  chain: ChainId,
  txid: string,
  inputs: readonly Outpoint[],
  change: { vout: number; address: string; amountRaw: bigint } | null,
  block: { height: number; hash: string },
): Promise<void> {
  await q.query(
    `UPDATE treasury_utxos u SET spent_by = $4, updated_at = now()
       FROM unnest($2::text[], $3::int[]) AS i(txid, vout)
      WHERE u.chain = $1 AND u.txid = i.txid AND u.vout = i.vout AND u.spent_by IS DISTINCT FROM $4`,
    [chain, inputs.map((i) => i.txid), inputs.map((i) => i.vout), txid],
  );
  if (change === null) return;
  await q.query(
    `INSERT INTO treasury_utxos (chain, txid, vout, address, amount_raw, source, block_height, block_hash)
     VALUES ($1, $2, $3, $4, $5, 'change', $6, $7)
     ON CONFLICT (chain, txid, vout) DO UPDATE
        SET block_height = EXCLUDED.block_height, block_hash = EXCLUDED.block_hash, updated_at = now()
      WHERE treasury_utxos.block_hash IS DISTINCT FROM EXCLUDED.block_hash`,
    [chain, txid, change.vout, change.address, change.amountRaw.toString(), block.height, block.hash],
  );
}

/** Our attempt `txid` is not (or no longer, after a reorg) in a block: its inputs are unspent, its change has no block. */
export async function recordUnmined(q: Queryable, chain: ChainId, txid: string): Promise<void> {
  await q.query("UPDATE treasury_utxos SET spent_by = NULL, updated_at = now() WHERE chain = $1 AND spent_by = $2", [
    chain,
    txid,
  ]);
  await q.query(
    `UPDATE treasury_utxos SET block_height = NULL, block_hash = NULL, updated_at = now()
      WHERE chain = $1 AND txid = $2 AND block_height IS NOT NULL`,
    [chain, txid],
  );
}

/** Hashes of our other attempts that spend `input` (replacements of one another share their inputs). */
export async function siblingHashes(q: Queryable, chain: ChainId, txHash: string, input: Outpoint): Promise<string[]> {
  const { rows } = await q.query<{ tx_hash: string }>(
    `SELECT tx_hash FROM treasury_attempts
      WHERE chain = $1 AND tx_hash <> $2
        AND guard -> 'inputs' @> jsonb_build_array(jsonb_build_object('txid', $3::text, 'vout', $4::int))`,
    [chain, txHash, input.txid, input.vout],
  );
  return rows.map((row) => row.tx_hash);
}

/**
 * The highest block our records place `inputs` in (treasury coins, or deposit outputs a sweep
 * spends): a transaction spending them is mined above it. Null when no input is known with a block.
 */
export async function inputsHeight(q: Queryable, chain: ChainId, inputs: readonly Outpoint[]): Promise<number | null> {
  const { rows } = await q.query<{ height: string | null }>(
    `SELECT max(h)::text AS height FROM (
       SELECT u.block_height AS h FROM unnest($2::text[], $3::int[]) AS i(txid, vout)
         JOIN treasury_utxos u ON u.chain = $1 AND u.txid = i.txid AND u.vout = i.vout
       UNION ALL
       SELECT d.block_height FROM unnest($2::text[], $3::int[]) AS i(txid, vout)
         JOIN deposits d ON d.chain = $1 AND d.tx_hash = i.txid AND d.position = 'vout:' || i.vout) x`,
    [chain, inputs.map((i) => i.txid), inputs.map((i) => i.vout)],
  );
  const height = rows[0]?.height ?? null;
  return height === null ? null : Number(height);
}
