import { randomUUID } from "node:crypto";
import type { ChainId } from "@mp/core";
import type { Queryable } from "@mp/db";
import { AttemptHashTakenError } from "./attempt-hash-taken.ts";
import type { AttemptState, SendOrder, SignedAttempt, StoredAttempt } from "./chain-sender.ts";

/**
 * The send pipeline's writes and reads of treasury_attempts, treasury_attempt_sends and the states
 * of treasury_sends (migrations/0090, 0091). Every write here runs inside the pipeline's fenced
 * transaction (assertLeader first); the reads run anywhere.
 */

/** A stored attempt plus what the pipeline needs to judge it. */
export interface OpenAttempt extends StoredAttempt {
  /** The head when it was last broadcast (stuck detection); null while never broadcast. */
  broadcastHeight: number | null;
  /**
   * Another attempt replaces this one (a newer fee bump exists, not failed nor expired): never
   * replaced or rebroadcast itself.
   */
  superseded: boolean;
  /** Every send it carries is confirmed (a mined attempt then only needs its block watched). */
  settled: boolean;
  /** One of its sends has landed through another attempt. */
  landedElsewhere: boolean;
}

/** A treasury_attempts row as read (heights as text): `${ATTEMPT_COLUMNS} FROM treasury_attempts a`. */
export interface StoredAttemptRow {
  id: string;
  chain: ChainId;
  from_address: string;
  tx_hash: string;
  raw: string;
  guard: Record<string, unknown>;
  fee: Record<string, unknown>;
  replaces: string | null;
  state: AttemptState;
  block_height: string | null;
  block_hash: string | null;
  created_at: Date;
  broadcast_at: Date | null;
}

/** The columns of a StoredAttemptRow, of treasury_attempts aliased `a`. */
export const ATTEMPT_COLUMNS = `a.id, a.chain, a.from_address, a.tx_hash, a.raw, a.guard, a.fee, a.replaces, a.state,
            a.block_height::text, a.block_hash, a.created_at, a.broadcast_at`;

/** The attempt a row holds, carrying `orders` (read from treasury_attempt_sends). */
export const toStoredAttempt = (row: StoredAttemptRow, orders: StoredAttempt["orders"]): StoredAttempt => ({
  id: row.id,
  chain: row.chain,
  txHash: row.tx_hash,
  raw: row.raw,
  from: row.from_address,
  guard: row.guard,
  fee: row.fee,
  orders,
  state: row.state,
  replaces: row.replaces,
  blockHeight: row.block_height === null ? null : Number(row.block_height),
  blockHash: row.block_hash,
  createdAt: row.created_at,
  broadcastAt: row.broadcast_at,
});

interface AttemptRow extends StoredAttemptRow {
  broadcast_height: string | null;
  orders: Array<{ id: string; outputIndex: number | null }>;
  superseded: boolean;
  settled: boolean;
  landed_elsewhere: boolean;
}

const toAttempt = (row: AttemptRow): OpenAttempt => ({
  ...toStoredAttempt(
    row,
    row.orders.map((o) => (o.outputIndex === null ? { id: o.id } : { id: o.id, outputIndex: o.outputIndex })),
  ),
  broadcastHeight: row.broadcast_height === null ? null : Number(row.broadcast_height),
  superseded: row.superseded,
  settled: row.settled,
  landedElsewhere: row.landed_elsewhere,
});

/**
 * Attempts of `chain` in `states`, oldest first (EVM: nonce order). `minedSince`: mined attempts
 * whose sends are all confirmed are listed only when their block is above this height (the reorg
 * window); older ones are final as far as the pipeline cares.
 */
export async function listAttempts(
  q: Queryable,
  chain: ChainId,
  states: readonly AttemptState[],
  minedSince = -1,
): Promise<OpenAttempt[]> {
  const { rows } = await q.query<AttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS}, a.broadcast_height::text,
            COALESCE(j.orders, '[]'::json) AS orders,
            -- A replacement refused for good (failed) or expired supersedes nothing: the attempt is
            -- watched, rebroadcast and replaced again (a dropped one would otherwise never settle).
            EXISTS (SELECT 1 FROM treasury_attempts r
                     WHERE r.replaces = a.id AND r.state NOT IN ('failed', 'expired')) AS superseded,
            -- An attempt carrying no send (an EVM nonce filler) is settled once mined.
            COALESCE(j.settled, true) AS settled,
            COALESCE(j.landed_elsewhere, false) AS landed_elsewhere
       FROM treasury_attempts a
       LEFT JOIN LATERAL (
         SELECT json_agg(json_build_object('id', x.send_id, 'outputIndex', x.output_index) ORDER BY x.output_index, x.send_id) AS orders,
                bool_and(s.state = 'confirmed') AS settled,
                bool_or(s.landed_attempt_id IS NOT NULL AND s.landed_attempt_id <> a.id) AS landed_elsewhere
           FROM treasury_attempt_sends x JOIN treasury_sends s ON s.id = x.send_id
          WHERE x.attempt_id = a.id) j ON true
      WHERE a.chain = $1 AND a.state = ANY($2::text[])
        AND NOT (a.state = 'mined' AND COALESCE(j.settled, true) AND a.block_height <= $3::bigint)
      ORDER BY a.created_at, a.id`,
    [chain, [...states], minedSince],
  );
  return rows.map(toAttempt);
}

/** The orders an attempt carries, as the family's sender sees them. */
export async function ordersOf(q: Queryable, attemptId: string): Promise<SendOrder[]> {
  const { rows } = await q.query<{ id: string; chain: ChainId; asset: string; to_address: string; amount_raw: string }>(
    `SELECT s.id, s.chain, s.asset, s.to_address, s.amount_raw::text AS amount_raw
       FROM treasury_attempt_sends x JOIN treasury_sends s ON s.id = x.send_id
      WHERE x.attempt_id = $1 ORDER BY x.output_index, s.id`,
    [attemptId],
  );
  return rows.map(toOrder);
}

const toOrder = (r: { id: string; chain: ChainId; asset: string; to_address: string; amount_raw: string }) => ({
  id: r.id,
  chain: r.chain,
  asset: r.asset,
  to: r.to_address,
  amountRaw: BigInt(r.amount_raw),
});

/**
 * Sends waiting to be signed (queued, or waiting for funds), first come first served. A sweep's send
 * is signed by the sweeper with the deposit key, never here (the pipeline holds treasury keys only).
 */
export async function listSignable(q: Queryable, chain: ChainId, limit: number): Promise<SendOrder[]> {
  const { rows } = await q.query<{
    id: string;
    chain: ChainId;
    asset: string;
    to_address: string;
    amount_raw: string;
    sign_alone: boolean;
  }>(
    `SELECT id, chain, asset, to_address, amount_raw::text AS amount_raw, sign_alone FROM treasury_sends
      WHERE chain = $1 AND state IN ('queued', 'waiting_funds') AND purpose <> 'sweep'
      ORDER BY created_at, id LIMIT $2`,
    [chain, limit],
  );
  return rows.map((r) => (r.sign_alone ? { ...toOrder(r), alone: true } : toOrder(r)));
}

/**
 * Locks the sends about to be signed and checks they still wait to be: false when another signer
 * (or an earlier pass) took one of them meanwhile, and then nothing may be signed.
 */
export async function lockSignable(tx: Queryable, ids: readonly string[]): Promise<boolean> {
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM treasury_sends WHERE id = ANY($1::text[]) AND state IN ('queued', 'waiting_funds') FOR UPDATE`,
    [[...ids]],
  );
  return rows.length === ids.length;
}

/** The sends wait for funds, with the reason (what is short). */
export async function markWaitingFunds(tx: Queryable, ids: readonly string[], reason: string): Promise<void> {
  await tx.query(
    `UPDATE treasury_sends SET state = 'waiting_funds', reason = $2, updated_at = now()
      WHERE id = ANY($1::text[]) AND state IN ('queued', 'waiting_funds')`,
    [[...ids], reason],
  );
}

/** The sends can never be signed (the chain's sender refused them): failed, nothing was signed. */
export async function markRejected(tx: Queryable, ids: readonly string[], reason: string): Promise<void> {
  await tx.query(
    `UPDATE treasury_sends SET state = 'failed', reason = $2, updated_at = now()
      WHERE id = ANY($1::text[]) AND state IN ('queued', 'waiting_funds')`,
    [[...ids], reason],
  );
}

/**
 * Stores a signed attempt (state signed) and what it carries, in the transaction that allocated
 * its replay guard; its sends become `signed` unless they are further along already (a
 * replacement of an attempt whose send is broadcast leaves the send broadcast).
 */
export async function insertAttempt(
  tx: Queryable,
  chain: ChainId,
  signed: SignedAttempt,
  replaces: string | null,
): Promise<string> {
  const { id, written } = issueAttemptInsert(tx, chain, signed, replaces);
  await written;
  return id;
}

/**
 * insertAttempt's statements (a check of the hash, three writes), issued at once: on Database.tx's
 * pipelined connection they go out together, with whatever the caller sends next. A caller that
 * does not await `written` lets them go out with COMMIT, which then reports a failure (tx throws
 * TransactionRolledBackError; `written` then says why). A hash another attempt already holds
 * rejects `written` with AttemptHashTakenError.
 */
export function issueAttemptInsert(
  tx: Queryable,
  chain: ChainId,
  signed: SignedAttempt,
  replaces: string | null,
): { id: string; written: Promise<void> } {
  const { ids, written } = issueAttemptInserts(tx, chain, [signed], replaces);
  return { id: ids[0] as string, written };
}

/**
 * Many new attempts (none replacing another) in the same four statements as one: the send
 * pipeline stores a signed chunk of twenty with four statements rather than eighty. Ids in the
 * order of `signed`.
 */
export function issueAttemptInserts(
  tx: Queryable,
  chain: ChainId,
  signed: readonly SignedAttempt[],
  replaces: string | null = null,
): { ids: string[]; written: Promise<void> } {
  const ids = signed.map(() => randomUUID());
  const links = signed.flatMap((s, i) =>
    s.orders.map((o) => ({ attempt: ids[i] as string, send: o.id, outputIndex: o.outputIndex ?? null })),
  );
  // Ahead of the inserts on the same connection, so it sees the table as they will: a hash already
  // stored fails `written` with AttemptHashTakenError (which attempt holds it, in what state)
  // instead of the bare unique violation, so the caller can refuse just what signed it.
  const taken = tx.query<{ tx_hash: string; id: string; state: string }>(
    "SELECT tx_hash, id, state FROM treasury_attempts WHERE chain = $1 AND tx_hash = ANY($2::text[])",
    [chain, signed.map((s) => s.txHash)],
  );
  const statements = Promise.allSettled([
    taken,
    tx.query(
      `INSERT INTO treasury_attempts (id, chain, from_address, tx_hash, raw, guard, fee, replaces, state)
       SELECT a.id, $1::text, a.from_address, a.tx_hash, a.raw, a.guard::jsonb, a.fee::jsonb, $2::text, 'signed'
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
              AS a(id, from_address, tx_hash, raw, guard, fee)`,
      [
        chain,
        replaces,
        ids,
        signed.map((s) => s.from),
        signed.map((s) => s.txHash),
        signed.map((s) => s.raw),
        signed.map((s) => JSON.stringify(s.guard)),
        signed.map((s) => JSON.stringify(s.fee)),
      ],
    ),
    tx.query(
      `INSERT INTO treasury_attempt_sends (attempt_id, send_id, output_index)
       SELECT o.attempt_id, o.id, o.output_index FROM unnest($1::text[], $2::text[], $3::int[]) AS o(attempt_id, id, output_index)`,
      [links.map((l) => l.attempt), links.map((l) => l.send), links.map((l) => l.outputIndex)],
    ),
    tx.query(
      `UPDATE treasury_sends SET state = 'signed', reason = NULL, updated_at = now()
        WHERE id = ANY($1::text[]) AND state IN ('queued', 'waiting_funds')`,
      [links.map((l) => l.send)],
    ),
  ]);
  const written = statements.then(([check, ...writes]) => {
    if (check?.status === "fulfilled" && check.value.rows.length > 0) {
      throw new AttemptHashTakenError(
        chain,
        check.value.rows.map((r) => ({ txHash: r.tx_hash, attemptId: r.id, state: r.state })),
      );
    }
    for (const w of [check, ...writes]) if (w?.status === "rejected") throw w.reason;
  });
  // Not awaited by every caller: COMMIT reports the failure, so it must not surface as unhandled.
  written.catch(() => undefined);
  return { ids, written };
}

/** The node has the attempts (or may have): attempt and sends `broadcast`, stuck clock started at `head`. */
export async function markBroadcast(tx: Queryable, ids: readonly string[], head: number): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(
    `UPDATE treasury_attempts SET state = 'broadcast', broadcast_at = now(), broadcast_height = $2, updated_at = now()
      WHERE id = ANY($1::text[]) AND state = 'signed'`,
    [[...ids], head],
  );
  await tx.query(
    `UPDATE treasury_sends s SET state = 'broadcast', updated_at = now()
       FROM treasury_attempt_sends x
      WHERE x.attempt_id = ANY($1::text[]) AND s.id = x.send_id AND s.state = 'signed'`,
    [[...ids]],
  );
}

/**
 * Each attempt is in its block: its sends have landed through it (not yet confirmed). Set-based: a
 * round that lands a thousand attempts is two statements.
 */
export async function markMined(
  tx: Queryable,
  landings: ReadonlyArray<{ id: string; height: number; hash: string }>,
): Promise<void> {
  if (landings.length === 0) return;
  const ids = landings.map((l) => l.id);
  await tx.query(
    `UPDATE treasury_attempts a SET state = 'mined', block_height = m.height, block_hash = m.hash, error = NULL,
            updated_at = now()
       FROM unnest($1::text[], $2::bigint[], $3::text[]) AS m(id, height, hash)
      WHERE a.id = m.id`,
    [ids, landings.map((l) => l.height), landings.map((l) => l.hash)],
  );
  await tx.query(
    `UPDATE treasury_sends s SET landed_attempt_id = x.attempt_id, state = 'broadcast', updated_at = now()
       FROM treasury_attempt_sends x
      WHERE x.attempt_id = ANY($1::text[]) AND s.id = x.send_id AND s.state IN ('signed', 'broadcast')`,
    [ids],
  );
}

/**
 * Their sends are confirmed; the sends' other open attempts can no longer land (same guard):
 * replaced. Returns the attempts that confirmed a send now.
 */
export async function markConfirmed(tx: Queryable, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const confirmed = await tx.query<{ attempt_id: string }>(
    `UPDATE treasury_sends s SET state = 'confirmed', reason = NULL, confirmed_at = now(), updated_at = now()
       FROM treasury_attempt_sends x
      WHERE x.attempt_id = ANY($1::text[]) AND s.id = x.send_id AND s.landed_attempt_id = x.attempt_id
        AND s.state <> 'confirmed'
     RETURNING x.attempt_id`,
    [[...ids]],
  );
  await retireSiblings(tx, ids);
  return new Set(confirmed.rows.map((r) => r.attempt_id));
}

/** Other open attempts of the same sends: a sibling landed, so they never will. */
async function retireSiblings(tx: Queryable, ids: readonly string[]): Promise<void> {
  await tx.query(
    `UPDATE treasury_attempts a SET state = 'replaced', updated_at = now()
      WHERE a.state IN ('signed', 'broadcast') AND NOT (a.id = ANY($1::text[]))
        AND a.id IN (SELECT y.attempt_id FROM treasury_attempt_sends x
                       JOIN treasury_attempt_sends y ON y.send_id = x.send_id WHERE x.attempt_id = ANY($1::text[]))`,
    [[...ids]],
  );
}

/** Mined but reverted: the attempt and its sends failed, with the reason. */
export async function markFailed(
  tx: Queryable,
  id: string,
  status: { blockHeight: number; blockHash: string; reason: string },
): Promise<void> {
  await tx.query(
    `UPDATE treasury_attempts SET state = 'failed', error = $2, block_height = $3, block_hash = $4, updated_at = now()
      WHERE id = $1`,
    [id, status.reason, status.blockHeight, status.blockHash],
  );
  await tx.query(
    `UPDATE treasury_sends s SET state = 'failed', reason = $2, landed_attempt_id = $1, updated_at = now()
       FROM treasury_attempt_sends x
      WHERE x.attempt_id = $1 AND s.id = x.send_id AND s.state <> 'confirmed'`,
    [id, status.reason],
  );
  await retireSiblings(tx, [id]);
}

/**
 * Proven never to land. While a sibling (another attempt of the same sends) is mined or still
 * open, the attempt was outbid by it: replaced, and the sends follow the sibling. Otherwise it
 * expired, and the sends go back to the queue to be signed again. Returns whether they were.
 */
export async function markExpired(tx: Queryable, id: string, reason: string): Promise<boolean> {
  const { rows } = await tx.query<{ mined: boolean; open: boolean }>(
    `SELECT COALESCE(bool_or(a.state = 'mined'), false) AS mined,
            COALESCE(bool_or(a.state IN ('signed', 'broadcast')), false) AS open
       FROM treasury_attempts a
      WHERE a.id <> $1 AND a.id IN (SELECT y.attempt_id FROM treasury_attempt_sends x
                                      JOIN treasury_attempt_sends y ON y.send_id = x.send_id WHERE x.attempt_id = $1)`,
    [id],
  );
  const siblings = rows[0] ?? { mined: false, open: false };
  await tx.query(
    `UPDATE treasury_attempts SET state = $2, error = $3, block_height = NULL, block_hash = NULL, updated_at = now() WHERE id = $1`,
    [id, siblings.mined || siblings.open ? "replaced" : "expired", reason],
  );
  if (siblings.mined || siblings.open) return false;
  await tx.query(
    `UPDATE treasury_sends s SET state = 'queued', reason = $2, landed_attempt_id = NULL, updated_at = now()
       FROM treasury_attempt_sends x
      WHERE x.attempt_id = $1 AND s.id = x.send_id AND s.state IN ('signed', 'broadcast')`,
    [id, `re-queued: ${reason}`],
  );
  return true;
}

/**
 * The attempt's block left the chain (reorg): it is watched again as broadcast (its stuck clock
 * restarted at `head`), and its sends, confirmed or not, go back to broadcast. Never re-sent: the
 * same signed transaction (or a replacement with the same guard) is all that may land.
 */
export async function markReorged(tx: Queryable, id: string, head: number): Promise<void> {
  await tx.query(
    `UPDATE treasury_attempts SET state = 'broadcast', block_height = NULL, block_hash = NULL,
            broadcast_height = $2, updated_at = now()
      WHERE id = $1`,
    [id, head],
  );
  await tx.query(
    `UPDATE treasury_sends SET state = 'broadcast', landed_attempt_id = NULL, confirmed_at = NULL, updated_at = now()
      WHERE landed_attempt_id = $1`,
    [id],
  );
}

/**
 * The node refused the attempt for good: failed, with the node's reason. Unless another attempt of
 * its sends is still open or mined (a replacement refused while the original is out changes nothing
 * for them), its one send fails with it; the sends of a refused batch are queued again, each to be
 * signed alone, so only the one at fault is refused next time. Returns whether nothing holds the
 * attempt's guard any more (the caller then fills it).
 */
export async function markRefused(tx: Queryable, id: string, reason: string): Promise<boolean> {
  const refused = await tx.query(
    // Refused: never on chain (a block it was once seen in was reorganised away), so it paid no fee.
    `UPDATE treasury_attempts SET state = 'failed', error = $2, block_height = NULL, block_hash = NULL, updated_at = now()
      WHERE id = $1 AND state IN ('signed', 'broadcast')`,
    [id, reason],
  );
  if (refused.rowCount !== 1) return false;
  const { rows } = await tx.query<{ open: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM treasury_attempts a
                     WHERE a.id <> $1 AND a.state IN ('signed', 'broadcast', 'mined')
                       AND a.id IN (SELECT y.attempt_id FROM treasury_attempt_sends x
                                      JOIN treasury_attempt_sends y ON y.send_id = x.send_id WHERE x.attempt_id = $1)) AS open`,
    [id],
  );
  if (rows[0]?.open) return false;
  await tx.query(
    `UPDATE treasury_sends s
        SET state = CASE WHEN n.sends > 1 THEN 'queued' ELSE 'failed' END,
            sign_alone = n.sends > 1,
            reason = CASE WHEN n.sends > 1 THEN 'its batch was refused, signed alone next: ' || $2 ELSE $2 END,
            updated_at = now()
       FROM treasury_attempt_sends x,
            (SELECT count(*) AS sends FROM treasury_attempt_sends WHERE attempt_id = $1) n
      WHERE x.attempt_id = $1 AND s.id = x.send_id AND s.state IN ('signed', 'broadcast')`,
    [id, reason],
  );
  return true;
}
