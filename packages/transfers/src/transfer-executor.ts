import { type IntervalPasses, type Logger, startIntervalPasses } from "@mp/core";
import type { Database } from "@mp/db";
import { type AddressScreening, recordSanctionsMatch, type SanctionsMatchInput } from "@mp/providers";
import { type BankPayoutDeps, executeBankPayoutsOnce } from "./bank-payout-pass.ts";
import { executeBankReturnsOnce } from "./bank-returns/bank-return-pass.ts";
import { returnLateFunding } from "./deposit-returns/late-funding-returns.ts";
import { settleDepositReturns } from "./deposit-returns/settle-deposit-returns.ts";
import { applyFundingDeposits, unfundReversedDeposits } from "./fund-from-crypto-deposits.ts";
import { provisionFundingAddresses } from "./funding-address.ts";
import type { FundingWallets } from "./funding-wallets.ts";
import { screenedTreasury } from "./screened-treasury.ts";
import {
  endedTransferPayouts,
  finishTransferPayout,
  fundedCryptoTransfers,
  giveUpStart,
  startTransferPayout,
} from "./transfer-execution.ts";
import { expireDueTransfers } from "./transfer-lifecycle.ts";
import { eachTransfer } from "./transfer-retries.ts";
import type { TransferTreasury } from "./transfer-treasury.ts";

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
  /** Deposit returns whose send ended (deposit-returns/), bank returns opened or moved (bank-returns/). */
  returns: number;
}

/**
 * One pass of the transfers' background work (worker role), in this order:
 * 1. unfunded transfers past their expiry become EXPIRED (reads only show them so);
 * 2. CRYPTO_DEPOSIT intents created without an address get one (with `fundingWallets`);
 * 3. confirmed deposits to funding addresses fund their intents; deposits of those a reorg reversed
 *    stop counting (before any payout starts on them);
 * 4. FUNDED transfers to a crypto address become sends of `treasury` (the transfer id as idempotency
 *    key) and PROCESSING; PROCESSING transfers whose send the treasury reports confirmed become
 *    COMPLETED, those whose send failed FAILED;
 * 6. (with `returnNetworkFeeUsdMicros`) late crypto funding, an over-payment's excess and the crypto
 *    payments of a customer-funded transfer whose payout failed, of merchants whose return policy is
 *    `return`, are taken back and sent to their payers; returns whose send ended are settled (deposit-returns/);
 * 7. (with `bank`) bank credits of merchants whose policy is `return` (late, excess, a failed
 *    payout's) are taken back, and bank returns are sent through the provider's payouts and their
 *    answers recorded (bank-returns/bank-return-pass.ts);
 * 5. (with `bank`, run before 4) FUNDED transfers to a US bank account go to the banking provider's
 *    payouts and ended payouts finish them (bank-payout-pass.ts: the provider is called outside
 *    any transaction).
 * Each transfer moves in its own transaction under its row lock, so two workers never move one twice
 * and a crash between the steps repeats nothing: the send's key finds the same send. Each is also
 * isolated (transfer-retries.ts): one that throws is recorded and retried
 * with backoff, never aborting the pass or holding up another; a payout that cannot start ends FAILED
 * past the bound (or at once when the treasury refuses it for good), its holds released.
 */
export async function executeTransfersOnce(
  db: Database,
  treasury: TransferTreasury,
  options: {
    fundingWallets?: FundingWallets | undefined;
    bank?: BankPayoutDeps | undefined;
    /** Payout destinations screened again at the send (a list may have changed since the quote). */
    sanctions?: AddressScreening | undefined;
    /** RETURN_NETWORK_FEE_USD: with it, late crypto funding of merchants whose policy is `return` goes back. */
    returnNetworkFeeUsdMicros?: bigint | undefined;
    logger?: Logger;
  } = {},
): Promise<TransferPass> {
  const { logger, sanctions } = options;
  // A payout's start in its own transaction; a destination refused by the screening is recorded after it.
  const startPayout = async (ref: { id: string; merchantId: string }) => {
    if (!sanctions) return db.tx((client) => startTransferPayout(client, ref, treasury));
    const refused: SanctionsMatchInput[] = [];
    try {
      return await db.tx((client) =>
        startTransferPayout(client, ref, screenedTreasury(treasury, sanctions, ref.merchantId, refused)),
      );
    } finally {
      for (const match of refused) await db.tx((client) => recordSanctionsMatch(client, match));
    }
  };
  const expired = await expireDueTransfers(db, BATCH, logger);
  const provisioned = options.fundingWallets
    ? await provisionFundingAddresses(db, options.fundingWallets, BATCH, logger)
    : 0;
  const applied = await applyFundingDeposits(db, BATCH, logger);
  const unfunded = await unfundReversedDeposits(db, BATCH, logger);
  // Bank destinations go through the banking provider's payouts (bank-payout-pass.ts).
  const banked = options.bank
    ? await executeBankPayoutsOnce(db, { ...options.bank, logger: options.bank.logger ?? logger })
    : { started: 0, finished: 0 };
  const started =
    banked.started +
    (await eachTransfer(db, await fundedCryptoTransfers(db, BATCH), "payout start", startPayout, {
      logger,
      giveUp: giveUpStart,
    }));
  const finished =
    banked.finished +
    (await eachTransfer(
      db,
      await endedTransferPayouts(db, treasury, BATCH),
      "payout finish",
      async (ref) => (await db.tx((client) => finishTransferPayout(client, ref))) !== undefined,
      { logger },
    ));
  const lateReturned =
    options.returnNetworkFeeUsdMicros === undefined
      ? 0
      : await returnLateFunding(
          db,
          { treasury, screening: sanctions, networkFeeUsdMicros: options.returnNetworkFeeUsdMicros },
          BATCH,
          logger,
        );
  // Bank money of the `return` policy and returned statement lines go back by bank (bank-returns/).
  const bankReturned = options.bank
    ? await executeBankReturnsOnce(db, { ...options.bank, logger: options.bank.logger ?? logger }, BATCH)
    : 0;
  const returns = lateReturned + bankReturned + (await settleDepositReturns(db, treasury, BATCH, logger));
  return { expired, provisioned, applied, unfunded, started, finished, returns };
}

/** Runs executeTransfersOnce every `intervalMs` until stopped; a failed pass is logged and retried. */
export function startTransferExecutor(options: {
  db: Database;
  treasury: TransferTreasury;
  logger: Logger;
  fundingWallets?: FundingWallets;
  sanctions?: AddressScreening;
  returnNetworkFeeUsdMicros?: bigint;
  intervalMs?: number;
  bank?: BankPayoutDeps;
}): IntervalPasses {
  const { db, logger } = options;
  return startIntervalPasses({
    pass: () =>
      executeTransfersOnce(db, options.treasury, {
        fundingWallets: options.fundingWallets,
        bank: options.bank,
        sanctions: options.sanctions,
        returnNetworkFeeUsdMicros: options.returnNetworkFeeUsdMicros,
        logger,
      }),
    intervalMs: options.intervalMs ?? 1_000,
    logger,
    didWork: (done) => Object.values(done).some((n) => n > 0),
    worked: "transfers executed",
    failed: "transfer execution failed; retried next tick",
  });
}
