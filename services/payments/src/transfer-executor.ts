import { endedTransferPayouts, finishTransferPayout, fundedCryptoTransfers, startTransferPayout } from "@mp/api";
import type { Logger } from "@mp/core";
import type { Database } from "@mp/db";
import { requestSend } from "@mp/treasury";
import { type BankPayoutDeps, executeBankPayoutsOnce } from "./transfer-bank-payouts.ts";

/** Transfers handled per step and kind: a backlog drains over a few ticks, never one long transaction. */
const BATCH = 50;

/**
 * One pass of transfer execution (worker role): FUNDED transfers to a crypto address become treasury
 * sends (purpose transfer, the transfer id as idempotency key) and PROCESSING; PROCESSING transfers
 * whose send the signer's pipeline confirmed become COMPLETED, those whose send failed FAILED. Each
 * transfer moves in its own transaction under its row lock, so two workers never move one twice and a
 * crash between the steps repeats nothing: the send's key finds the same send.
 */
export async function executeTransfersOnce(
  db: Database,
  bank?: BankPayoutDeps,
): Promise<{ started: number; finished: number }> {
  // Bank destinations go through the banking provider's payouts (transfer-bank-payouts.ts).
  const banked = bank ? await executeBankPayoutsOnce(db, bank) : { started: 0, finished: 0 };
  let started = banked.started;
  for (const ref of await fundedCryptoTransfers(db, BATCH)) {
    const moved = await db.tx((client) =>
      startTransferPayout(client, ref, (sql, payout, idempotencyKey) =>
        requestSend(sql, { ...payout, purpose: "transfer", idempotencyKey }),
      ),
    );
    if (moved) started += 1;
  }
  let finished = banked.finished;
  for (const ref of await endedTransferPayouts(db, BATCH)) {
    if (await db.tx((client) => finishTransferPayout(client, ref))) finished += 1;
  }
  return { started, finished };
}

/** Runs executeTransfersOnce every `intervalMs` until stopped; a failed pass is logged and retried. */
export function startTransferExecutor(options: {
  db: Database;
  logger: Logger;
  intervalMs?: number;
  bank?: BankPayoutDeps;
}): {
  stop(): Promise<void>;
} {
  const { db, logger } = options;
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= executeTransfersOnce(db, options.bank)
      .then(
        (done) => {
          if (done.started + done.finished > 0) logger.info(done, "transfers executed");
        },
        (error: unknown) => logger.warn({ err: String(error) }, "transfer execution failed; retried next tick"),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, options.intervalMs ?? 1_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
