import { createHash, randomUUID } from "node:crypto";
import { type ChainId, ConflictError, ValidationError } from "@mp/core";
import { assertExternalDestination } from "@mp/custody";
import type { Queryable } from "@mp/db";
import type { SendCheck } from "./send-check.ts";

/**
 * sweep: a sweep's own send FROM a deposit address (signed by the sweeper with the deposit key, never
 * by the pipeline); return: a returned deposit's money going back to its payer (@mp/transfers' deposit returns).
 */
export type SendPurpose = "operator" | "top_up" | "transfer" | "sweep" | "return";
export type SendState = "queued" | "waiting_funds" | "signed" | "broadcast" | "confirmed" | "failed";

export interface SendRequest {
  chain: ChainId;
  asset: string;
  to: string;
  amountRaw: bigint;
  purpose: SendPurpose;
  /** The caller's idempotency key: the same key again returns the same send and sends nothing more. */
  idempotencyKey: string;
}

/** A send request as stored (treasury_sends). */
export interface TreasurySend extends SendRequest {
  id: string;
  state: SendState;
  /** Why it waits or failed; null otherwise. */
  reason: string | null;
  /** The hash of the attempt that landed, once one has. */
  txHash: string | null;
  createdAt: Date;
  updatedAt: Date;
  confirmedAt: Date | null;
}

interface SendRow {
  id: string;
  chain: ChainId;
  asset: string;
  to_address: string;
  amount_raw: string;
  purpose: SendPurpose;
  idempotency_key: string;
  request_hash: string;
  state: SendState;
  reason: string | null;
  tx_hash: string | null;
  created_at: Date;
  updated_at: Date;
  confirmed_at: Date | null;
}

const SEND_COLUMNS = `s.id, s.chain, s.asset, s.to_address, s.amount_raw::text AS amount_raw, s.purpose,
  s.idempotency_key, s.request_hash, s.state, s.reason, a.tx_hash, s.created_at, s.updated_at, s.confirmed_at`;
const SEND_FROM = "treasury_sends s LEFT JOIN treasury_attempts a ON a.id = s.landed_attempt_id";

function toSend(row: SendRow): TreasurySend {
  return {
    id: row.id,
    chain: row.chain,
    asset: row.asset,
    to: row.to_address,
    amountRaw: BigInt(row.amount_raw),
    purpose: row.purpose,
    idempotencyKey: row.idempotency_key,
    state: row.state,
    reason: row.reason,
    txHash: row.tx_hash,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    confirmedAt: row.confirmed_at,
  };
}

function requestHash(request: SendRequest): string {
  const canonical = [request.chain, request.asset, request.to, request.amountRaw.toString(), request.purpose].join(
    "\n",
  );
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * What no chain would ever take, refused before it is queued, by the chain's family (`check`): the
 * address (Bitcoin: a standard address of any network; the CLI, which knows the deployment's
 * network, checks that too), the amount against the dust limit where the family has one.
 */
function assertSendable(request: SendRequest, check: SendCheck): void {
  if (!check.isSendDestination(request.to)) {
    throw new ValidationError(`${request.to} is not a ${request.chain} address`, "to");
  }
  check.assertSendAmount(request.asset, request.amountRaw);
}

/**
 * Stores a send request (state queued) and returns it; the signer's pipeline picks it up. The same
 * idempotency key again returns the stored send (whatever its state now) and stores nothing; the same
 * key with other parameters is refused (idempotency_conflict). A destination that is no address of
 * the chain, or an amount below its dust limit (`check`, the chain's family's), is refused (validation_error) and nothing is stored; so
 * is a transfer payout or a return to an address of ours (destination_internal);
 * checking the asset against the chain config is the caller's job (it knows the config).
 */
export async function requestSend(
  db: Queryable,
  request: SendRequest,
  check: SendCheck,
): Promise<{ send: TreasurySend; created: boolean }> {
  if (request.amountRaw <= 0n) throw new ValidationError("amount must be positive", "amount");
  if (request.idempotencyKey.length === 0 || request.idempotencyKey.length > 255) {
    throw new ValidationError("the idempotency key must be 1 to 255 characters", "key");
  }
  assertSendable(request, check);
  // A merchant's payout never goes to an address of ours (issue 27; the quote refused it already).
  // The operator's sends and top-ups may: the indexer credits a payout to a deposit address to its owner.
  if (request.purpose === "transfer" || request.purpose === "return") {
    await assertExternalDestination(db, request.chain, request.to);
  }
  const hash = requestHash(request);
  // ON CONFLICT DO NOTHING, then read: two callers racing with one key both end up with the one row.
  const inserted = await db.query<{ id: string; created_at: Date; updated_at: Date }>(
    `INSERT INTO treasury_sends (id, chain, asset, to_address, amount_raw, purpose, idempotency_key, request_hash, state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued')
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, created_at, updated_at`,
    [
      randomUUID(),
      request.chain,
      request.asset,
      request.to,
      request.amountRaw.toString(),
      request.purpose,
      request.idempotencyKey,
      hash,
    ],
  );
  const created = inserted.rows[0];
  if (created) {
    // Just stored from this very request: nothing to read back (a sweep pass stores a thousand).
    const send: TreasurySend = {
      id: created.id,
      chain: request.chain,
      asset: request.asset,
      to: request.to,
      amountRaw: request.amountRaw,
      purpose: request.purpose,
      idempotencyKey: request.idempotencyKey,
      state: "queued",
      reason: null,
      txHash: null,
      createdAt: created.created_at,
      updatedAt: created.updated_at,
      confirmedAt: null,
    };
    return { send, created: true };
  }
  const { rows } = await db.query<SendRow>(`SELECT ${SEND_COLUMNS} FROM ${SEND_FROM} WHERE s.idempotency_key = $1`, [
    request.idempotencyKey,
  ]);
  const row = rows[0];
  if (!row) throw new Error("treasury send vanished after insert");
  if (row.request_hash !== hash) {
    throw new ConflictError(
      "this idempotency key was used for a send with other parameters; use a new key",
      "idempotency_conflict",
    );
  }
  return { send: toSend(row), created: false };
}

export async function findSend(q: Queryable, id: string): Promise<TreasurySend | null> {
  const { rows } = await q.query<SendRow>(`SELECT ${SEND_COLUMNS} FROM ${SEND_FROM} WHERE s.id = $1`, [id]);
  return rows[0] ? toSend(rows[0]) : null;
}

/** Sends not yet confirmed or failed, oldest first (`payments treasury pending`). */
export async function listOpenSends(q: Queryable, chain?: ChainId): Promise<TreasurySend[]> {
  const { rows } = await q.query<SendRow>(
    `SELECT ${SEND_COLUMNS} FROM ${SEND_FROM}
      WHERE s.state NOT IN ('confirmed', 'failed') AND ($1::text IS NULL OR s.chain = $1)
      ORDER BY s.created_at, s.id`,
    [chain ?? null],
  );
  return rows.map(toSend);
}
