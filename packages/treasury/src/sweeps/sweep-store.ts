import { randomUUID } from "node:crypto";
import type { ChainId, Logger } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { SendCheck } from "../send-check.ts";
import { requestSend } from "../send-requests.ts";

/** The sweepers' reads and writes of treasury_sweeps (migrations/0106, 0115), and how they write. */

export type SweepState = "topping_up" | "ready" | "sweeping" | "confirmed" | "failed";

/** A deposit address holding confirmed deposits of an asset that no sweep has covered yet. */
export interface SweepCandidate {
  destinationId: string;
  address: string;
  addressKey: string;
  derivationPath: string;
  asset: string;
  /** Confirmed deposits minus what earlier (not failed) sweeps covered. */
  unsweptRaw: bigint;
}

/**
 * Per deposit address and asset of `chain`: confirmed deposits not covered by a sweep, for the
 * addresses with no open sweep of that asset. The threshold is the caller's (it knows the assets).
 */
export async function listSweepCandidates(q: Queryable, chain: ChainId, limit: number): Promise<SweepCandidate[]> {
  const { rows } = await q.query<{
    destination_id: string;
    address: string;
    address_key: string;
    derivation_path: string;
    asset: string;
    unswept: string;
  }>(
    `SELECT d.destination_id, t.address, t.address_key, t.derivation_path, d.asset,
            (sum(d.amount_raw) - COALESCE(max(w.covered), 0))::text AS unswept
       FROM deposits d
       JOIN destinations t ON t.id = d.destination_id
       LEFT JOIN LATERAL (
         SELECT sum(s.covered_raw) AS covered FROM treasury_sweeps s
          WHERE s.destination_id = d.destination_id AND s.asset = d.asset AND s.state <> 'failed') w ON true
      WHERE d.chain = $1 AND d.status = 'CONFIRMED'
        AND NOT EXISTS (SELECT 1 FROM treasury_sweeps o
                         WHERE o.destination_id = d.destination_id AND o.asset = d.asset
                           AND o.state IN ('topping_up', 'ready', 'sweeping'))
      GROUP BY d.destination_id, t.address, t.address_key, t.derivation_path, d.asset
     HAVING sum(d.amount_raw) - COALESCE(max(w.covered), 0) > 0
      ORDER BY d.destination_id, d.asset
      LIMIT $2`,
    [chain, limit],
  );
  return rows.map((r) => ({
    destinationId: r.destination_id,
    address: r.address,
    addressKey: r.address_key,
    derivationPath: r.derivation_path,
    asset: r.asset,
    unsweptRaw: BigInt(r.unswept),
  }));
}

export interface NewSweep {
  chain: ChainId;
  candidate: SweepCandidate;
  treasuryAddress: string;
  amountRaw: bigint;
  state: "topping_up" | "ready";
}

/**
 * Stores a sweep; null when another one of the address and asset is open (the unique index: a
 * second sweep could only count the same deposits twice).
 */
export async function insertSweep(tx: Queryable, sweep: NewSweep): Promise<string | null> {
  const id = randomUUID();
  const { rows } = await tx.query(
    `INSERT INTO treasury_sweeps (id, chain, asset, destination_id, deposit_address, deposit_address_key,
       treasury_address, covered_raw, amount_raw, state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (chain, deposit_address_key, asset) WHERE state IN ('topping_up', 'ready', 'sweeping') DO NOTHING
     RETURNING id`,
    [
      id,
      sweep.chain,
      sweep.candidate.asset,
      sweep.candidate.destinationId,
      sweep.candidate.address,
      sweep.candidate.addressKey,
      sweep.treasuryAddress,
      sweep.candidate.unsweptRaw.toString(),
      sweep.amountRaw.toString(),
      sweep.state,
    ],
  );
  return rows.length === 1 ? id : null;
}

/**
 * Per deposit address, what its open sweeps of `asset` (topping up, ready or sweeping) are to move
 * (`amount`) and cover (`covered`: the amount and the most their own fees may take): money that is
 * leaving the address, so no other sweep's fee may count on it.
 */
export async function openSweepAmounts(
  q: Queryable,
  chain: ChainId,
  asset: string,
): Promise<Map<string, { amount: bigint; covered: bigint }>> {
  const { rows } = await q.query<{ address: string; amount: string; covered: string }>(
    `SELECT deposit_address AS address, sum(amount_raw)::text AS amount, sum(covered_raw)::text AS covered
       FROM treasury_sweeps
      WHERE chain = $1 AND asset = $2 AND state IN ('topping_up', 'ready', 'sweeping')
      GROUP BY deposit_address`,
    [chain, asset],
  );
  return new Map(rows.map((r) => [r.address, { amount: BigInt(r.amount), covered: BigInt(r.covered) }]));
}

/**
 * Per deposit address (of the destinations `destinationIds`), the customers' `asset` deposits on `chain` that no sweep
 * covers yet, pending ones too, whether or not a sweep of the address is open: coin that is leaving
 * the address, so no other sweep's fee may count on it. listSweepCandidates leaves out both (an
 * address with an open sweep of the asset, a deposit not yet confirmed), yet the node's balance
 * holds them: a token sweep paying its fee from them spent the customer's coin, and the native
 * sweep, sized for the whole deposit, could then never be paid.
 */
export async function unsweptDepositsAt(
  q: Queryable,
  chain: ChainId,
  asset: string,
  destinationIds: readonly string[],
): Promise<Map<string, bigint>> {
  if (destinationIds.length === 0) return new Map();
  const { rows } = await q.query<{ address: string; unswept: string }>(
    `SELECT t.address, (sum(d.amount_raw) - COALESCE(max(w.covered), 0))::text AS unswept
       FROM destinations t
       JOIN deposits d ON d.destination_id = t.id
       LEFT JOIN LATERAL (
         SELECT sum(s.covered_raw) AS covered FROM treasury_sweeps s
          WHERE s.destination_id = t.id AND s.asset = $2 AND s.state <> 'failed') w ON true
      WHERE t.id = ANY($3::uuid[]) AND d.chain = $1 AND d.asset = $2 AND d.status IN ('PENDING', 'CONFIRMED')
      GROUP BY t.id
     HAVING sum(d.amount_raw) - COALESCE(max(w.covered), 0) > 0`,
    [chain, asset, destinationIds],
  );
  return new Map(rows.map((r) => [r.address, BigInt(r.unswept)]));
}

export async function setTopUpSend(tx: Queryable, sweepId: string, sendId: string): Promise<void> {
  await tx.query("UPDATE treasury_sweeps SET top_up_send_id = $2, updated_at = now() WHERE id = $1", [sweepId, sendId]);
}

/** Sweeps whose top-up confirmed become ready; those whose top-up failed fail. */
export async function settleTopUps(tx: Queryable, chain: ChainId): Promise<void> {
  await tx.query(
    `UPDATE treasury_sweeps w SET state = 'ready', updated_at = now()
       FROM treasury_sends s
      WHERE w.chain = $1 AND w.state = 'topping_up' AND s.id = w.top_up_send_id AND s.state = 'confirmed'`,
    [chain],
  );
  await tx.query(
    `UPDATE treasury_sweeps w SET state = 'failed', reason = 'gas top-up failed: ' || COALESCE(s.reason, 'no reason'),
            updated_at = now()
       FROM treasury_sends s
      WHERE w.chain = $1 AND w.state = 'topping_up' AND s.id = w.top_up_send_id AND s.state = 'failed'`,
    [chain],
  );
}

export interface OpenSweep {
  id: string;
  asset: string;
  destinationId: string;
  depositAddress: string;
  derivationPath: string;
  treasuryAddress: string;
  amountRaw: bigint;
  /** The sweep's send, once signed. */
  sendId: string | null;
}

export async function listReadySweeps(q: Queryable, chain: ChainId, limit: number): Promise<OpenSweep[]> {
  return listOpenSweeps(q, chain, limit, "w.state = 'ready'");
}

/**
 * Sweeps whose signed transaction was proven never to land (a Solana blockhash or Tron expiration
 * passed): the send pipeline put their send back to `queued`, and only the sweeper, which holds
 * the deposit key, signs it again (lockSignable decides the one signer).
 */
export async function listRequeuedSweeps(
  q: Queryable,
  chain: ChainId,
  limit: number,
): Promise<Array<OpenSweep & { sendId: string }>> {
  const sweeps = await listOpenSweeps(
    q,
    chain,
    limit,
    `w.state = 'sweeping' AND EXISTS (SELECT 1 FROM treasury_sends s
                                       WHERE s.id = w.send_id AND s.state IN ('queued', 'waiting_funds'))`,
  );
  return sweeps.flatMap((sweep) => (sweep.sendId === null ? [] : [{ ...sweep, sendId: sweep.sendId }]));
}

async function listOpenSweeps(q: Queryable, chain: ChainId, limit: number, where: string): Promise<OpenSweep[]> {
  const { rows } = await q.query<{
    id: string;
    asset: string;
    destination_id: string;
    deposit_address: string;
    derivation_path: string;
    treasury_address: string;
    amount_raw: string;
    send_id: string | null;
  }>(
    `SELECT w.id, w.asset, w.destination_id, w.deposit_address, t.derivation_path, w.treasury_address,
            w.amount_raw::text AS amount_raw, w.send_id
       FROM treasury_sweeps w JOIN destinations t ON t.id = w.destination_id
      WHERE w.chain = $1 AND ${where} ORDER BY w.created_at, w.id LIMIT $2`,
    [chain, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    asset: r.asset,
    destinationId: r.destination_id,
    depositAddress: r.deposit_address,
    derivationPath: r.derivation_path,
    treasuryAddress: r.treasury_address,
    amountRaw: BigInt(r.amount_raw),
    sendId: r.send_id,
  }));
}

/**
 * The sweep's own send (purpose sweep, deposit address -> treasury; key `sweep:<id>`, so a retry
 * finds the same one), checked by the family's send check: its id.
 */
export async function requestSweepSend(
  tx: Queryable,
  chain: ChainId,
  sweep: OpenSweep,
  check: SendCheck,
): Promise<string> {
  const request = {
    chain,
    asset: sweep.asset,
    to: sweep.treasuryAddress,
    amountRaw: sweep.amountRaw,
    purpose: "sweep",
    idempotencyKey: `sweep:${sweep.id}`,
  } as const;
  return (await requestSend(tx, request, check)).send.id;
}

/**
 * The sweep's own send (requestSweepSend) and the sweep marked sweeping, in the transaction that then
 * stores its first attempt; null when the sweep is no longer ready (another pass took it).
 */
export async function startSweepSend(
  tx: Queryable,
  chain: ChainId,
  sweep: OpenSweep,
  check: SendCheck,
): Promise<string | null> {
  const sendId = await requestSweepSend(tx, chain, sweep, check);
  return (await markSweeping(tx, sweep.id, sendId)) ? sendId : null;
}

/** The sweep's send is signed and stored (in the same transaction as its attempt). */
export async function markSweeping(tx: Queryable, sweepId: string, sendId: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE treasury_sweeps SET state = 'sweeping', send_id = $2, reason = NULL, updated_at = now()
      WHERE id = $1 AND state = 'ready'`,
    [sweepId, sendId],
  );
  return rowCount === 1;
}

/**
 * What the sweep's last signed transaction does with rent (lamports): reclaims it from the deposit
 * token account it closes, pays it for the treasury token account it opens. In the transaction
 * that stores the attempt, so the row always describes the attempt that may land.
 */
export async function setSweepRent(
  tx: Queryable,
  sweepId: string,
  rent: { reclaimedRaw: bigint; paidRaw: bigint },
): Promise<void> {
  await tx.query(
    "UPDATE treasury_sweeps SET rent_reclaimed_raw = $2, rent_paid_raw = $3, updated_at = now() WHERE id = $1",
    [sweepId, rent.reclaimedRaw.toString(), rent.paidRaw.toString()],
  );
}

/**
 * Never sign for an address whose key we do not derive (the destination row and the mnemonic
 * disagree): the sweep waits, with the reason, and the error is logged. True when it was refused.
 */
export async function refuseForeignDepositKey(
  q: Queryable,
  logger: Logger,
  sweep: OpenSweep,
  key: { address: string; matches: boolean },
): Promise<boolean> {
  if (key.matches) return false;
  await noteSweepWaiting(q, sweep.id, `the deposit key derives ${key.address}, not ${sweep.depositAddress}`);
  logger.error({ sweep: sweep.id, address: sweep.depositAddress }, "deposit key does not match its address");
  return true;
}

/**
 * Per asset, the open sweep whose signed transaction opens the treasury's token account (it pays
 * rent): while it may land, no other sweep of the asset may open it too (a second CreateIdempotent
 * would pay nothing, but its sweep would record rent paid).
 */
export async function listTreasuryAccountOpeners(q: Queryable, chain: ChainId): Promise<Map<string, string>> {
  const { rows } = await q.query<{ asset: string; id: string }>(
    `SELECT asset, min(id) AS id FROM treasury_sweeps
      WHERE chain = $1 AND state = 'sweeping' AND rent_paid_raw > 0 GROUP BY asset`,
    [chain],
  );
  return new Map(rows.map((r) => [r.asset, r.id]));
}

export async function noteSweepWaiting(q: Queryable, sweepId: string, reason: string): Promise<void> {
  await q.query("UPDATE treasury_sweeps SET reason = $2, updated_at = now() WHERE id = $1", [sweepId, reason]);
}

/** A sweep whose send the pipeline settled (confirmed or failed), with the attempt that landed. */
export interface SettledSweep {
  id: string;
  sendId: string;
  sendState: "confirmed" | "failed";
  reason: string | null;
  attemptId: string | null;
  txHash: string | null;
  /** The landed attempt's fee as signed (SignedAttempt.fee). */
  fee: Record<string, unknown> | null;
  coveredRaw: bigint;
  amountRaw: bigint;
}

/** Sweeps whose send the pipeline settled (confirmed or failed), with the attempt that landed. */
export async function listSettledSweeps(q: Queryable, chain: ChainId): Promise<SettledSweep[]> {
  const { rows } = await q.query<{
    id: string;
    send_id: string;
    send_state: "confirmed" | "failed";
    reason: string | null;
    attempt_id: string | null;
    tx_hash: string | null;
    fee: Record<string, unknown> | null;
    covered_raw: string;
    amount_raw: string;
  }>(
    `SELECT w.id, w.send_id, s.state AS send_state, s.reason, s.landed_attempt_id AS attempt_id, a.tx_hash, a.fee,
            w.covered_raw::text AS covered_raw, w.amount_raw::text AS amount_raw
       FROM treasury_sweeps w JOIN treasury_sends s ON s.id = w.send_id
       LEFT JOIN treasury_attempts a ON a.id = s.landed_attempt_id
      WHERE w.chain = $1 AND w.state = 'sweeping' AND s.state IN ('confirmed', 'failed')`,
    [chain],
  );
  return rows.map((r) => ({
    id: r.id,
    sendId: r.send_id,
    sendState: r.send_state,
    reason: r.reason,
    attemptId: r.attempt_id,
    txHash: r.tx_hash,
    fee: r.fee,
    coveredRaw: BigInt(r.covered_raw),
    amountRaw: BigInt(r.amount_raw),
  }));
}

export async function finishSweep(
  tx: Queryable,
  sweepId: string,
  outcome: {
    state: "confirmed" | "failed";
    attemptId: string | null;
    txHash: string | null;
    feePaidRaw: bigint | null;
    reason: string | null;
    /** What reached the treasury, when the landed attempt moved other than amount_raw (a Bitcoin fee bump). */
    amountRaw?: bigint;
  },
): Promise<void> {
  await tx.query(
    `UPDATE treasury_sweeps SET state = $2, attempt_id = $3, tx_hash = $4, fee_paid_raw = $5, reason = $6,
            amount_raw = COALESCE($7::numeric, amount_raw),
            confirmed_at = CASE WHEN $2 = 'confirmed' THEN now() END, updated_at = now()
      WHERE id = $1 AND state = 'sweeping'`,
    [
      sweepId,
      outcome.state,
      outcome.attemptId,
      outcome.txHash,
      outcome.feePaidRaw?.toString() ?? null,
      outcome.reason,
      outcome.amountRaw?.toString() ?? null,
    ],
  );
}

/**
 * Sweeps whose send the pipeline put back in the queue, where nothing can sign them again (a
 * Bitcoin batch whose inputs a reorg removed, or that the node refused for good): the sends fail
 * and the sweeps with them, with `why` and the pipeline's reason. Their deposits, no longer covered
 * by an open sweep or a live attempt, are swept again by a later pass (those still on the chain).
 */
export async function failUnsignableSweeps(tx: Queryable, chain: ChainId, why: string): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `WITH failed AS (
       UPDATE treasury_sends s SET state = 'failed', reason = $2 || COALESCE(s.reason, 'no reason'), updated_at = now()
         FROM treasury_sweeps w
        WHERE w.chain = $1 AND w.state = 'sweeping' AND s.id = w.send_id AND s.state IN ('queued', 'waiting_funds')
       RETURNING s.id, s.reason)
     UPDATE treasury_sweeps w SET state = 'failed', reason = failed.reason, updated_at = now()
       FROM failed
      WHERE w.send_id = failed.id AND w.state = 'sweeping'
     RETURNING w.id`,
    [chain, why],
  );
  return rows.map((r) => r.id);
}

/**
 * Confirmed sweeps whose send is no longer confirmed: the pipeline saw its block leave the chain and
 * watches the same transaction again (never a new one). The sweep is out again too: back to
 * sweeping, its fee unknown until it lands anew (finishSweep then records it again). One whose
 * address and asset has another sweep open meanwhile waits for that one to finish (one open sweep
 * per address and asset); the next pass reopens it. Returns the sweeps reopened.
 */
export async function reopenReorgedSweeps(tx: Queryable, chain: ChainId): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE treasury_sweeps w SET state = 'sweeping', attempt_id = NULL, tx_hash = NULL, fee_paid_raw = NULL,
            confirmed_at = NULL, updated_at = now()
       FROM treasury_sends s
      WHERE w.chain = $1 AND w.state = 'confirmed' AND s.id = w.send_id AND s.state <> 'confirmed'
        AND NOT EXISTS (SELECT 1 FROM treasury_sweeps o
                         WHERE o.chain = w.chain AND o.deposit_address_key = w.deposit_address_key
                           AND o.asset = w.asset AND o.state IN ('topping_up', 'ready', 'sweeping'))
     RETURNING w.id`,
    [chain],
  );
  return rows.map((r) => r.id);
}
