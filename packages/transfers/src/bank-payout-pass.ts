import type { Logger } from "@mp/core";
import type { Database } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import type { BankingProvider } from "@mp/providers";
import {
  bankPayoutRequest,
  duePayouts,
  fundedBankTransfers,
  type PayoutPacing,
  postponePayoutCheck,
  recordBankPayoutIntent,
  recordPayoutAnswer,
} from "./bank-payout-execution.ts";
import { giveUpStart } from "./transfer-execution.ts";
import { eachTransfer } from "./transfer-retries.ts";

/** What bank payouts need besides the database: the provider, the key that opens the payee's details. */
export interface BankPayoutDeps extends PayoutPacing {
  banking: BankingProvider;
  keyring: EncryptionKeyring;
  logger?: Logger | undefined;
  /** How long to wait before asking again after a failed provider call; default 30 s. */
  retrySeconds?: number;
}

/** Payouts handled per step: a backlog drains over a few ticks. */
const BATCH = 50;

/**
 * One pass of bank-destination execution: FUNDED transfers to a US bank account get their payout
 * recorded and become PROCESSING (one transaction each); then each due payout is sent or asked
 * about, outside any transaction, and the answer recorded in its own transaction
 * (bank-payout-execution.ts). A provider error postpones that payout
 * only; a crash after the call repeats it, and the transfer id as idempotency key finds the same one.
 */
export async function executeBankPayoutsOnce(
  db: Database,
  deps: BankPayoutDeps,
): Promise<{ started: number; finished: number }> {
  const started = await eachTransfer(
    db,
    await fundedBankTransfers(db, BATCH),
    "bank payout start",
    (ref) => db.tx((client) => recordBankPayoutIntent(client, ref, deps.banking.name)),
    { logger: deps.logger, giveUp: giveUpStart },
  );
  let finished = 0;
  for (const due of await duePayouts(db, BATCH)) {
    let answer: Parameters<typeof recordPayoutAnswer>[2];
    try {
      answer = due.providerPayoutId
        ? { providerPayoutId: due.providerPayoutId, status: await deps.banking.getPayoutStatus(due.providerPayoutId) }
        : await deps.banking.sendPayout(await bankPayoutRequest(db, deps.keyring, due.transferId));
    } catch (error) {
      deps.logger?.warn({ err: String(error), transferId: due.transferId }, "bank payout call failed; retried later");
      await postponePayoutCheck(db, due.transferId, deps.retrySeconds ?? 30);
      continue;
    }
    try {
      if (await db.tx((client) => recordPayoutAnswer(client, due, answer, deps))) finished += 1;
    } catch (error) {
      // A database error: this payout waits, the others (and the crypto transfers after them) go on.
      deps.logger?.warn(
        { err: String(error), transferId: due.transferId },
        "bank payout answer not recorded; retried later",
      );
      await postponePayoutCheck(db, due.transferId, deps.retrySeconds ?? 30);
    }
  }
  return { started, finished };
}
