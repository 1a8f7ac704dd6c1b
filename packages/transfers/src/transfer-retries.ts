import { AppError, type Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";

/**
 * How the transfer executor isolates one transfer from the others (issue 27, finding 2). Each
 * transfer of a step (expire, provision, apply a deposit, start or finish a payout) runs in its own
 * transaction; one that throws is recorded on that transfer alone (migrations/0155: attempts,
 * next_attempt_at, last_error) and left out of the executor's selections until its next try, so it
 * neither aborts the pass nor keeps another transfer waiting.
 *
 * Backoff: 5 s after the first failure, doubling, at most 15 min between tries. Bound: a payout that
 * cannot START (nothing has left: e.g. a destination the treasury refuses, a bug, a merchant whose
 * available balance a reorg left below zero) ends FAILED after MAX_START_ATTEMPTS tries (about 1 h
 * 40 min of trying), its holds released, its reason recorded; a request the treasury refuses for
 * good (PERMANENT_CODES: it would be refused the same way every time) fails at once. A step
 * that cannot FINISH is retried at the backoff forever (a confirmed payout has left: it can only end
 * COMPLETED, never FAILED) and logged at error level for an operator.
 */
export const RETRY_BASE_SECONDS = 5;
export const RETRY_MAX_SECONDS = 900;
export const MAX_START_ATTEMPTS = 12;

/** Seconds to wait after the `attempts`-th failure in a row (1-based). */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(RETRY_BASE_SECONDS * 2 ** Math.max(0, attempts - 1), RETRY_MAX_SECONDS);
}

/** The SQL condition of a transfer (alias t) due for a try: the executor's selections add it. */
export const DUE_FOR_TRY = "(t.next_attempt_at IS NULL OR t.next_attempt_at <= now())";

/** A transfer one step works on. */
export interface TransferRef {
  id: string;
  merchantId: string;
}

/** The transfers a step's selection finds: `query` selects their `id` and `merchant_id`. */
export async function selectTransferRefs(sql: Queryable, query: string, params: unknown[]): Promise<TransferRef[]> {
  const { rows } = await sql.query<{ id: string; merchant_id: string }>(query, params);
  return rows.map((row) => ({ id: row.id, merchantId: row.merchant_id }));
}

/**
 * Refusals of the request itself (requestSend: no address of the chain, below its dust limit, an
 * address of ours; the same key with other parameters): they would be answered the same way every time. Anything else
 * (a database error, a rolled-back transaction, a bug) may pass and is retried.
 */
const PERMANENT_CODES: ReadonlySet<string> = new Set([
  "validation_error",
  "idempotency_conflict",
  "amount_below_minimum",
  // A payout to an address of ours (requestSend, issue 27): refused the same way every time.
  "destination_internal",
  // A destination a sanctions list names (docs/sanctions.md): the payout fails at once, never retried.
  "destination_sanctioned",
]);

function permanent(error: unknown): boolean {
  return error instanceof AppError && !error.retryable && PERMANENT_CODES.has(error.code);
}

/** Records one failed try of `ref` (own transaction): attempts + 1, the next try after the backoff. */
export async function recordFailedTry(db: Database, ref: TransferRef, error: unknown): Promise<number> {
  const result = await db.query<{ execution_attempts: number }>(
    `UPDATE transfers SET execution_attempts = execution_attempts + 1, last_error = left($3, 2000),
            next_attempt_at = now() + make_interval(secs => least($4::float8 * power(2, least(execution_attempts, 20)), $5::float8))
      WHERE id = $1 AND merchant_id = $2 RETURNING execution_attempts`,
    [ref.id, ref.merchantId, describe(error), RETRY_BASE_SECONDS, RETRY_MAX_SECONDS],
  );
  return result.rows[0]?.execution_attempts ?? 0;
}

/**
 * Runs `step` for each transfer of `refs`, each isolated: a throw is logged and recorded on that
 * transfer (recordFailedTry). `giveUp` (a payout's start: bounded) ends the transfer past the bound,
 * or at once for a permanent refusal, with the reason. Returns how many moved.
 */
export async function eachTransfer<R extends TransferRef>(
  db: Database,
  refs: readonly R[],
  what: string,
  step: (ref: R) => Promise<boolean>,
  options: { logger?: Logger | undefined; giveUp?: GiveUp } = {},
): Promise<number> {
  let moved = 0;
  for (const ref of refs) {
    try {
      if (await step(ref)) moved += 1;
    } catch (error) {
      moved += (await recordFailure(db, ref, what, error, options)) ? 1 : 0;
    }
  }
  return moved;
}

/** Ends a transfer whose step was given up (transfer-execution.ts giveUpStart); true when it moved. */
export type GiveUp = (db: Database, ref: TransferRef, reason: string) => Promise<boolean>;

/** The failed try recorded; a bounded step (a payout's start) gives up past the bound. True when it moved. */
async function recordFailure(
  db: Database,
  ref: TransferRef,
  what: string,
  error: unknown,
  options: { logger?: Logger | undefined; giveUp?: GiveUp },
): Promise<boolean> {
  const log = { transferId: ref.id, merchantId: ref.merchantId, err: describe(error) };
  try {
    const attempts = await recordFailedTry(db, ref, error);
    if (options.giveUp && (permanent(error) || attempts >= MAX_START_ATTEMPTS)) {
      const reason = `${what} failed ${permanent(error) ? "for good" : `${attempts} times`}: ${describe(error)}`;
      const failed = await options.giveUp(db, ref, reason);
      options.logger?.error({ ...log, attempts, failed }, `transfer ${what} given up: FAILED, holds released`);
      return failed;
    }
    // Unbounded (a step that can only be retried): loud once it has failed as often as a start may.
    const level = !options.giveUp && attempts >= MAX_START_ATTEMPTS ? "error" : "warn";
    const retryInSeconds = retryDelaySeconds(attempts);
    options.logger?.[level]({ ...log, attempts, retryInSeconds }, `transfer ${what} failed; retried later`);
  } catch (recording) {
    // The database itself failing: the next pass tries again (nothing was recorded, nothing moved).
    options.logger?.warn({ ...log, recordErr: describe(recording) }, `transfer ${what} failed and was not recorded`);
  }
  return false;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
