import type { Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { appendResourceEvent } from "@mp/events";
import { postBankReturnPaid, releaseBankSuspense } from "@mp/ledger";
import type { BankPayoutStatus } from "@mp/providers";
import type { PayoutPacing } from "../bank-payout-execution.ts";
import type { BankPayoutDeps } from "../bank-payout-pass.ts";
import { recordBankReturnBounce } from "./bank-return-bounce.ts";
import { lockReturnPayout } from "./bank-return-locks.ts";
import { bankReturnPayout } from "./bank-return-payout.ts";
import { takeBackBankCredits } from "./take-back-bank-credits.ts";

interface DueReturn {
  id: string;
  /** The bank's key of the payout asked now: an answer recorded for an older one is dropped. */
  payout_key: string;
  provider_payout_id: string | null;
  /** `returned`: paid, and asked whether the payer's bank sent it back; else `sending`. */
  state: "sending" | "returned";
}

type Answer = { providerPayoutId: string; status: BankPayoutStatus };

/**
 * Returns the bank should be asked about now: not sent yet, or sent and not ended; and paid ones
 * still within the return window (a payer's bank may send the payment back, as a payee's bank does
 * a transfer's payout), asked every `returnCheckSeconds` or at once when a statement line returns
 * their payout (applyPayoutLine).
 */
async function dueBankReturns(sql: Queryable, limit: number, windowSeconds: number): Promise<DueReturn[]> {
  const { rows } = await sql.query<DueReturn>(
    `(SELECT id, payout_key, provider_payout_id, state, next_check_at FROM bank_returns
       WHERE state = 'sending' AND next_check_at <= now() ORDER BY next_check_at, id LIMIT $1)
     UNION ALL
     (SELECT id, payout_key, provider_payout_id, state, next_check_at FROM bank_returns
       WHERE state = 'returned' AND next_check_at <= now() AND provider_payout_id IS NOT NULL
         AND returned_at > now() - make_interval(secs => $2)
       ORDER BY next_check_at, id LIMIT $1)
     ORDER BY next_check_at, id`,
    [limit, windowSeconds],
  );
  return rows;
}

async function postpone(sql: Queryable, id: string, seconds: number): Promise<void> {
  await sql.query(
    "UPDATE bank_returns SET next_check_at = now() + make_interval(secs => $2), updated_at = now() WHERE id = $1",
    [id, seconds],
  );
}

/** A return that cannot be sent (its payer's account will not do): payable, with why. */
async function markPayable(sql: Queryable, due: DueReturn, reason: string): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE bank_returns SET state = 'payable', reason = $3, requested_at = NULL, updated_at = now()
      WHERE id = $1 AND payout_key = $2 AND state = 'sending' AND provider_payout_id IS NULL`,
    [due.id, due.payout_key, reason],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Records what the bank said of one return's payout `payoutKey`, under its row lock (a second
 * worker, or a replay after a crash, finds it no longer `sending` and does nothing; an answer about
 * an older payout of a return an operator sent again is dropped): PENDING/SENT -> still sending (the
 * provider's payout id kept); COMPLETED -> `returned`, the money leaves the bank in the ledger once
 * (a suspense line: bank_suspense_out; a policy return: bank_return_paid, returns_payable ->
 * bank_clearing, once per payout key), then asked about hourly while it may come back; FAILED or
 * RETURNED (never seen paid) -> `failed` with the bank's reason: nothing left, still owed.
 * A policy return's merchant is told, in the same transaction: `bank_deposit.return_sent` (paid) or
 * `bank_deposit.return_failed`, the object its bank deposit (a suspense line's return has no merchant).
 */
export async function recordBankReturnAnswer(
  sql: Queryable,
  { id, payoutKey }: { id: string; payoutKey: string },
  answer: Answer,
  pacing: PayoutPacing = {},
): Promise<boolean> {
  const locked = await lockReturnPayout(sql, { id, payoutKey }, "sending");
  if (!locked) return false;
  const { row, bankDeposit } = locked;
  const { status } = answer.status;
  if (status === "PENDING" || status === "SENT") {
    await sql.query(
      `UPDATE bank_returns SET provider_payout_id = $2, next_check_at = now() + make_interval(secs => $3),
         updated_at = now() WHERE id = $1`,
      [id, answer.providerPayoutId, pacing.pendingCheckSeconds ?? 0],
    );
    return false;
  }
  if (status === "FAILED" || status === "RETURNED") {
    await sql.query(
      `UPDATE bank_returns SET state = 'failed', provider_payout_id = $2, reason = $3, updated_at = now() WHERE id = $1`,
      [id, answer.providerPayoutId, `the bank did not pay the return: ${answer.status.reason}; it is still owed`],
    );
    if (row.merchant_id && bankDeposit) {
      await appendResourceEvent(sql, row.merchant_id, "bank_deposit.return_failed", bankDeposit);
    }
    return true;
  }
  const paid =
    row.origin === "suspense"
      ? row.line_id && (await releaseBankSuspense(sql, row.line_id))
      : await postBankReturnPaid(sql, { payoutKey, owedUsdMicros: BigInt(row.owed) });
  // Paid, then asked about hourly while the payer's bank may still send it back (recordBankReturnBounce).
  await sql.query(
    `UPDATE bank_returns SET state = 'returned', provider_payout_id = $2, paid_entry_id = $3, reason = NULL,
       returned_at = now(), next_check_at = now() + make_interval(secs => $4), updated_at = now() WHERE id = $1`,
    [id, answer.providerPayoutId, paid ? paid.entryId : null, pacing.returnCheckSeconds ?? 3600],
  );
  if (row.merchant_id && bankDeposit)
    await appendResourceEvent(sql, row.merchant_id, "bank_deposit.return_sent", bankDeposit);
  return true;
}

/**
 * One pass of bank returns (worker role, with the bank payouts): bank credits of merchants whose
 * policy is `return` are taken back (take-back-bank-credits.ts), then each `sending` return is sent
 * through the banking provider (keyed by the return's id: a repeat after a crash finds the same
 * payout) or asked about, outside any transaction, and the answer recorded in its own transaction.
 * A provider error postpones that return only. Returns how many returns were opened or moved.
 */
export async function executeBankReturnsOnce(db: Database, deps: BankPayoutDeps, batch: number): Promise<number> {
  const { banking, keyring, logger } = deps;
  let moved = await takeBackBankCredits(db, batch, logger);
  for (const due of await dueBankReturns(db, batch, deps.returnWindowSeconds ?? 60 * 86_400)) {
    if (due.state === "returned") {
      if (await followPaidReturn(db, deps, due)) moved++;
      continue;
    }
    let answer: Answer;
    try {
      if (due.provider_payout_id) {
        answer = {
          providerPayoutId: due.provider_payout_id,
          status: await banking.getPayoutStatus(due.provider_payout_id),
        };
      } else {
        const payout = await bankReturnPayout(db, keyring, due.payout_key);
        if (!payout || "refused" in payout) {
          if (payout && (await markPayable(db, due, payout.refused))) moved++;
          continue;
        }
        answer = await banking.sendPayout(payout.request);
      }
    } catch (error) {
      logWarn(logger, error, due.id, "bank return call failed; retried later");
      await postpone(db, due.id, deps.retrySeconds ?? 30);
      continue;
    }
    try {
      const payout = { id: due.id, payoutKey: due.payout_key };
      if (await db.tx((sql) => recordBankReturnAnswer(sql, payout, answer, deps))) moved++;
    } catch (error) {
      logWarn(logger, error, due.id, "bank return answer not recorded; retried later");
      await postpone(db, due.id, deps.retrySeconds ?? 30);
    }
  }
  return moved;
}

/**
 * A paid return asked whether its payer's bank sent the payment back: RETURNED -> followed
 * (recordBankReturnBounce, one transaction); anything else -> asked again `returnCheckSeconds` later.
 */
async function followPaidReturn(db: Database, deps: BankPayoutDeps, due: DueReturn): Promise<boolean> {
  try {
    const status = await deps.banking.getPayoutStatus(due.provider_payout_id ?? "");
    const payout = { id: due.id, payoutKey: due.payout_key };
    if (status.status === "RETURNED" && (await db.tx((sql) => recordBankReturnBounce(sql, payout, status.reason)))) {
      return true;
    }
    await db.query(
      `UPDATE bank_returns SET next_check_at = now() + make_interval(secs => $3), updated_at = now()
        WHERE id = $1 AND payout_key = $2 AND state = 'returned'`,
      [due.id, due.payout_key, deps.returnCheckSeconds ?? 3600],
    );
  } catch (error) {
    logWarn(deps.logger, error, due.id, "bank return's payout not followed; retried later");
    await postpone(db, due.id, deps.retrySeconds ?? 30);
  }
  return false;
}

function logWarn(logger: Logger | undefined, error: unknown, returnId: string, message: string): void {
  logger?.warn({ err: String(error), returnId }, message);
}
