import type { ChainId, Logger } from "@mp/core";
import type { Queryable } from "@mp/db";

/** A stored attempt holding a hash that a new signature produced again. */
export interface TakenHash {
  txHash: string;
  attemptId: string;
  state: string;
}

/**
 * A transaction just signed has the hash of an attempt already stored (treasury_attempts is unique
 * by chain and hash): nothing of it may be stored, and its writes roll back with the caller's
 * transaction. A deterministic signer meets it when it signs the same inputs to the same outputs
 * at the same tip height again, e.g. a Bitcoin sweep batched again after a reorg or a refusal
 * failed its first one (docs/treasury.md, "One attempt per transaction hash").
 */
export class AttemptHashTakenError extends Error {
  readonly code = "attempt_hash_taken";
  constructor(
    readonly chain: ChainId,
    readonly taken: readonly TakenHash[],
  ) {
    super(
      `${chain} transaction ${taken.map((t) => `${t.txHash} (stored attempt ${t.attemptId}, ${t.state})`).join(", ")} ` +
        "is already stored: not stored again, signed again in a later pass",
    );
    this.name = "AttemptHashTakenError";
  }
}

/**
 * Counts the refusal of each taken hash (treasury_hash_refusals, read by /metrics) and logs it:
 * outside the refused transaction, which rolled back. A count that cannot be written is logged only:
 * the refusal itself already happened.
 */
export async function recordHashRefusal(
  q: Queryable,
  logger: Logger,
  error: AttemptHashTakenError,
  signedBy: "sweep" | "send",
  context: Record<string, unknown>,
): Promise<void> {
  logger.warn(
    { ...context, chain: error.chain, taken: error.taken, signedBy },
    "a signed transaction has the hash of a stored attempt: refused this pass, signed again later",
  );
  await q
    .query(
      `INSERT INTO treasury_hash_refusals (chain, tx_hash, attempt_id, attempt_state, signed_by, refusals)
       SELECT $1, t.tx_hash, t.attempt_id, t.state, $5, 1
         FROM unnest($2::text[], $3::text[], $4::text[]) AS t(tx_hash, attempt_id, state)
       ON CONFLICT (chain, tx_hash) DO UPDATE
          SET refusals = treasury_hash_refusals.refusals + 1, attempt_id = excluded.attempt_id,
              attempt_state = excluded.attempt_state, signed_by = excluded.signed_by, last_at = now()`,
      [
        error.chain,
        error.taken.map((t) => t.txHash),
        error.taken.map((t) => t.attemptId),
        error.taken.map((t) => t.state),
        signedBy,
      ],
    )
    .catch((err: unknown) => logger.warn({ err: String(err) }, "the hash refusal could not be counted"));
}

/** Refusals counted per chain (the /metrics gauge treasury_attempt_hash_refusals). */
export async function countHashRefusals(q: Queryable): Promise<Array<{ chain: string; refusals: number }>> {
  const { rows } = await q.query<{ chain: string; refusals: string }>(
    "SELECT chain, sum(refusals)::text AS refusals FROM treasury_hash_refusals GROUP BY chain ORDER BY chain",
  );
  return rows.map((r) => ({ chain: r.chain, refusals: Number(r.refusals) }));
}
