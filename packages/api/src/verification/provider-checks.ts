import { isAppError, type Logger } from "@mp/core";
import type { AppDeps } from "../deps.ts";

/**
 * Asking an outside provider for a result that is not there yet (a KYC review, a bank account
 * activation) is a chain of jobs: each job carries the row's `provider_checks` value it expects, and
 * the step that schedules the next job advances that value in the same transaction. A job that runs
 * a second time (after a crash between its effect and its completion) finds the value moved on and
 * does nothing, so the chain never forks and no effect is applied twice.
 */

/** Longest wait between two checks: a review can take days, a check every 10 minutes is plenty. */
export const MAX_CHECK_DELAY_SECONDS = 600;

/** 1, 1, 2, 4, ... seconds, capped: quick when the provider is quick, gentle when it is not. */
export function nextCheckDelaySeconds(checksSoFar: number): number {
  return Math.min(2 ** Math.max(0, checksSoFar - 1), MAX_CHECK_DELAY_SECONDS);
}

/** A provider outage (ServiceUnavailableError and other retryable errors) rather than a bug. */
export function isProviderOutage(error: unknown): boolean {
  return isAppError(error) && error.retryable;
}

/**
 * Calls the provider. On an outage, logs `warning` with `fields`, runs `retry` (the next check of the
 * chain) and answers undefined so the job ends; any other error propagates (a bug is not retried).
 */
export async function callProvider<T>(
  logger: Logger,
  outage: { fields: object; warning: string; retry: () => Promise<unknown> },
  call: () => Promise<T>,
): Promise<{ value: T } | undefined> {
  try {
    return { value: await call() };
  } catch (error) {
    if (!isProviderOutage(error)) throw error;
    logger.warn({ ...outage.fields, err: String(error) }, outage.warning);
    await outage.retry();
    return undefined;
  }
}

export interface ProviderCheckJob {
  check: number;
}

type CheckedTable = "verification_submissions" | "virtual_accounts";

/**
 * Advances `provider_checks` of the row from `expectedChecks` (only while it is still in `status`)
 * and enqueues `queue` with the new value after `delaySeconds`, atomically. False when another run
 * already moved the row on (nothing is enqueued then). `updated_at` is left alone: nothing a client
 * sees has changed.
 */
export async function scheduleNextCheck(
  deps: Pick<AppDeps, "db" | "jobs">,
  target: {
    table: CheckedTable;
    id: string;
    status: string;
    expectedChecks: number;
    queue: string;
    data: (check: number) => object;
    delaySeconds: number;
  },
): Promise<boolean> {
  return deps.db.tx(async (client) => {
    const moved = await client.query(
      `UPDATE ${target.table} SET provider_checks = provider_checks + 1
       WHERE id = $1 AND status = $2 AND provider_checks = $3`,
      [target.id, target.status, target.expectedChecks],
    );
    if ((moved.rowCount ?? 0) === 0) return false;
    await deps.jobs.send(target.queue, target.data(target.expectedChecks + 1), {
      client,
      startAfterSeconds: target.delaySeconds,
    });
    return true;
  });
}
