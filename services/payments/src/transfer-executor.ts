import {
  applyFundingDeposits,
  eachTransfer,
  endedTransferPayouts,
  expireDueTransfers,
  finishTransferPayout,
  fundedCryptoTransfers,
  giveUpStart,
  provisionFundingAddresses,
  startTransferPayout,
  unfundReversedDeposits,
  type WalletSlots,
} from "@mp/api";
import type { Logger } from "@mp/core";
import type { Database } from "@mp/db";
import { type AddressScreening, refuseSanctionedDestination } from "@mp/providers";
import { requestSend } from "@mp/treasury";
import { type BankPayoutDeps, executeBankPayoutsOnce } from "./transfer-bank-payouts.ts";

/** Transfers handled per step and kind: a backlog drains over a few ticks, never one long transaction. */
const BATCH = 50;

/** What one pass did, per step. */
export interface TransferPass {
  expired: number;
  provisioned: number;
  applied: number;
  unfunded: number;
  started: number;
  finished: number;
}

/**
 * One pass of the transfers' background work (worker role), in this order:
 * 1. unfunded transfers past their expiry become EXPIRED (reads only show them so);
 * 2. CRYPTO_DEPOSIT intents created without an address get one (with `walletSlots`);
 * 3. confirmed deposits to funding addresses fund their intents; deposits of those a reorg reversed
 *    stop counting (before any payout starts on them);
 * 4. FUNDED transfers to a crypto address become treasury sends (purpose transfer, the transfer id as
 *    idempotency key) and PROCESSING; PROCESSING transfers whose send the signer's pipeline confirmed
 *    become COMPLETED, those whose send failed FAILED;
 * 5. (with `bank`, run before 4) FUNDED transfers to a US bank account go to the banking provider's
 *    payouts and ended payouts finish them (transfer-bank-payouts.ts: the provider is called outside
 *    any transaction).
 * Each transfer moves in its own transaction under its row lock, so two workers never move one twice
 * and a crash between the steps repeats nothing: the send's key finds the same send. Each is also
 * isolated (packages/api/src/transfers/transfer-retries.ts): one that throws is recorded and retried
 * with backoff, never aborting the pass or holding up another; a payout that cannot start ends FAILED
 * past the bound (or at once when the treasury refuses it for good), its holds released.
 */
export async function executeTransfersOnce(
  db: Database,
  options: {
    walletSlots?: WalletSlots | undefined;
    bank?: BankPayoutDeps | undefined;
    /** Payout destinations screened again at the send (a list may have changed since the quote). */
    sanctions?: AddressScreening | undefined;
    logger?: Logger;
  } = {},
): Promise<TransferPass> {
  const { logger } = options;
  const expired = await expireDueTransfers(db, BATCH, logger);
  const provisioned = options.walletSlots ? await provisionFundingAddresses(db, options.walletSlots, BATCH, logger) : 0;
  const applied = await applyFundingDeposits(db, BATCH, logger);
  const unfunded = await unfundReversedDeposits(db, BATCH, logger);
  // Bank destinations go through the banking provider's payouts (transfer-bank-payouts.ts).
  const banked = options.bank
    ? await executeBankPayoutsOnce(db, { ...options.bank, logger: options.bank.logger ?? logger })
    : { started: 0, finished: 0 };
  const started =
    banked.started +
    (await eachTransfer(
      db,
      await fundedCryptoTransfers(db, BATCH),
      "payout start",
      (ref) =>
        db.tx((client) =>
          startTransferPayout(client, ref, async (sql, payout, idempotencyKey) => {
            if (options.sanctions) {
              const screened = { chain: payout.chain, address: payout.to, reference: idempotencyKey };
              await refuseSanctionedDestination(db, options.sanctions, {
                context: "payout",
                merchantId: ref.merchantId,
                field: "destination.address",
                ...screened,
              });
            }
            return requestSend(sql, { ...payout, purpose: "transfer", idempotencyKey });
          }),
        ),
      { logger, giveUp: giveUpStart },
    ));
  const finished =
    banked.finished +
    (await eachTransfer(
      db,
      await endedTransferPayouts(db, BATCH),
      "payout finish",
      async (ref) => (await db.tx((client) => finishTransferPayout(client, ref))) !== undefined,
      { logger },
    ));
  return { expired, provisioned, applied, unfunded, started, finished };
}

/** Runs executeTransfersOnce every `intervalMs` until stopped; a failed pass is logged and retried. */
export function startTransferExecutor(options: {
  db: Database;
  logger: Logger;
  walletSlots?: WalletSlots;
  sanctions?: AddressScreening;
  intervalMs?: number;
  bank?: BankPayoutDeps;
}): {
  stop(): Promise<void>;
} {
  const { db, logger } = options;
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= executeTransfersOnce(db, {
      walletSlots: options.walletSlots,
      bank: options.bank,
      sanctions: options.sanctions,
      logger,
    })
      .then(
        (done) => {
          if (Object.values(done).some((n) => n > 0)) logger.info(done, "transfers executed");
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
