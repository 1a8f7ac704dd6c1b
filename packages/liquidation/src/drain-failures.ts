import { AppError } from "@mp/core";
import type { Database } from "@mp/db";
import { moveDrain } from "./drain-events.ts";
import { oweFailedDrainBack } from "./drain-returns.ts";
import { type DrainFailureReason, FINAL_REFUSALS } from "./statuses.ts";

/** Tries a drain gets before it fails retries_exhausted (2^n s apart, at most 5 min: about 8.5 min in all). */
export const DEFAULT_MAX_DRAIN_ATTEMPTS = 8;

/** The codes of the refusals a drain fails at once for, saying which (statuses.ts). */
const FINAL_CODES: ReadonlySet<string> = new Set<DrainFailureReason>(FINAL_REFUSALS);

function finalReason(error: unknown): DrainFailureReason | null {
  return error instanceof AppError && FINAL_CODES.has(error.code) ? (error.code as DrainFailureReason) : null;
}

/**
 * Records that drain `drainId` (still awaiting_funds) could not be made into a transfer: a final
 * refusal, or the last of `maxAttempts` tries, moves it to `failed` with its reason and event (its
 * money stays on the merchant's available balance, credited at confirmation, flagged by the drain;
 * or, when its address has a return_address, is owed back there: drain-returns.ts);
 * otherwise it is tried again after 2^attempts seconds (at most 5 minutes). In one transaction under
 * the drain's row lock: a drain another worker holds is left to it. Returns whether it failed.
 */
export async function recordDrainError(
  db: Database,
  drainId: string,
  error: unknown,
  maxAttempts: number,
): Promise<boolean> {
  const message = String(error).slice(0, 500);
  return db.tx(async (sql) => {
    const { rows } = await sql.query<{ merchant_id: string; attempts: number }>(
      `SELECT merchant_id, attempts FROM liquidation_drains
        WHERE id = $1 AND state = 'awaiting_funds' FOR UPDATE SKIP LOCKED`,
      [drainId],
    );
    const drain = rows[0];
    if (!drain) return false;
    const reason = finalReason(error) ?? (drain.attempts + 1 >= maxAttempts ? "retries_exhausted" : null);
    await sql.query(
      `UPDATE liquidation_drains SET attempts = attempts + 1, last_error = $2, updated_at = now(),
              next_attempt_at = now() + make_interval(secs => least(300, power(2, least(attempts + 1, 9))))
        WHERE id = $1`,
      [drainId, message],
    );
    if (reason === null) return false;
    await oweFailedDrainBack(sql, drainId);
    await moveDrain(sql, { id: drainId, merchantId: drain.merchant_id }, "failed", {
      failureReason: reason,
      lastError: message,
    });
    return true;
  });
}
