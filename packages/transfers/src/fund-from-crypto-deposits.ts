import { feeMicros, type Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { lockFundingAccounts, postFundingFeeRefund, releaseUnappliedFunding } from "@mp/ledger";
import {
  applyFundingCredit,
  type FundingTarget,
  lockFundingTarget,
  unapplyFundingCredit,
} from "./apply-funding-credit.ts";
import { DUE_FOR_TRY, eachTransfer } from "./transfer-retries.ts";

interface FundingDeposit {
  id: string;
  merchant_id: string;
  transfer_id: string;
  amount_raw: string;
  amount_usd_micros: string;
  fee_usd_micros: string;
  fee_bps: number;
  fee_fixed_micros: string;
}

/**
 * Confirmed deposits of the quoted asset to an intent's address, not yet applied, oldest first. A
 * held deposit (the customer was rejected by then) stays the operator's: it funds nothing. Another
 * asset paid to the address is an ordinary deposit of the merchant (credited by the indexer, fee
 * included, and never reserved).
 */
const UNAPPLIED_DEPOSITS = `
  SELECT d.id, d.merchant_id, i.transfer_id, d.amount_raw::text AS amount_raw,
         d.amount_usd_micros::text AS amount_usd_micros, d.fee_usd_micros::text AS fee_usd_micros,
         m.fee_bps, m.fee_fixed_micros::text AS fee_fixed_micros
    FROM deposits d JOIN funding_intents i ON i.deposit_destination_id = d.destination_id
    JOIN merchants m ON m.id = d.merchant_id
   WHERE d.status = 'CONFIRMED' AND d.hold_status IS NULL AND d.asset = i.asset
     AND NOT EXISTS (SELECT 1 FROM funding_intent_credits c WHERE c.deposit_id = d.id)`;

/**
 * Applies the indexer's confirmed deposits to the intents whose addresses they paid, each once, in
 * its own transaction: the transfer and intent locked first (apply-funding-credit.ts), then the
 * deposit row (FOR SHARE: a reorg's rollback, which locks it FOR UPDATE, waits for the application
 * or comes first and is seen), rechecked CONFIRMED and unapplied. The indexer credited it like any
 * deposit, the merchant's deposit fee taken, and reserved its net until now (@mp/ledger
 * funding-deposits.ts); applying says what the money is (applyFundingDeposit): what the intent still
 * needed is held at the deposit's USD valuation, exactly as a bank credit is, and the intent is funded
 * only once what it holds is worth the quote's source value (funding-value.ts: crypto worth less at
 * confirmation than quoted is short and waits for a top-up).
 */
export async function applyFundingDeposits(db: Database, limit: number, logger?: Logger): Promise<number> {
  const due = await db.query<FundingDeposit>(
    `${UNAPPLIED_DEPOSITS} AND EXISTS (SELECT 1 FROM transfers t WHERE t.id = i.transfer_id AND ${DUE_FOR_TRY})
      ORDER BY d.confirmed_at, d.id LIMIT $1`,
    [limit],
  );
  return eachLockedFunding(db, due.rows, "funding deposit", logger, {
    recheck: (sql, row) => sql.query<FundingDeposit>(`${UNAPPLIED_DEPOSITS} AND d.id = $1 FOR SHARE OF d`, [row.id]),
    apply: applyFundingDeposit,
  });
}

/**
 * Runs a funding step for each of `rows`, each in its own transaction (eachTransfer: a throw is
 * recorded on that transfer alone): the transfer and intent locked first (lockFundingTarget), then
 * the row read again under its own lock by `recheck`, which answers nothing once another pass or a
 * reorg has dealt with it; `apply` then works on the locked target and the fresh row.
 */
function eachLockedFunding<Row extends { merchant_id: string; transfer_id: string }>(
  db: Database,
  rows: readonly Row[],
  what: string,
  logger: Logger | undefined,
  step: {
    recheck: (sql: Queryable, row: Row) => Promise<{ rows: Row[] }>;
    apply: (sql: Queryable, target: FundingTarget, row: Row) => Promise<void>;
  },
): Promise<number> {
  const refs = rows.map((row) => ({ row, id: row.transfer_id, merchantId: row.merchant_id }));
  return eachTransfer(
    db,
    refs,
    what,
    (ref) =>
      db.tx(async (sql) => {
        const target = await lockFundingTarget(sql, ref.merchantId, ref.id);
        if (!target) return false;
        const [fresh] = (await step.recheck(sql, ref.row)).rows;
        if (!fresh) return false;
        await step.apply(sql, target, fresh);
        return true;
      }),
    { logger },
  );
}

/**
 * One deposit for its (locked) intent, in one transaction: the reservation the indexer placed is
 * released and the deposit applied (applyFundingCredit: the part the intent takes is held for the
 * transfer); that part pays no deposit fee, so its share of the fee the indexer took is given back
 * (funding_fee_refund) and the deposit shows the fee it finally paid: that of a deposit of the rest
 * (late money, an excess), as any deposit pays. Available only grows here: by what no intent took,
 * net of its fee.
 */
async function applyFundingDeposit(sql: Queryable, target: FundingTarget, deposit: FundingDeposit): Promise<void> {
  const amount = BigInt(deposit.amount_raw);
  const usd = BigInt(deposit.amount_usd_micros);
  // Pro rata of the deposit's valuation, rounded down: the hold never exceeds what was credited.
  const usdMicrosOf = (units: bigint) => (usd * units) / amount;
  const merchantId = deposit.merchant_id;
  // An intent that takes the payment may earn it a refund, posted to fee_revenue after the holds:
  // its balance row is locked first. (Late money posts to merchant rows only; an expiry that
  // lockFundingTarget just recorded has locked those already.)
  if (target.intent.status === "PENDING") await lockFundingAccounts(sql, merchantId);
  await releaseUnappliedFunding(sql, { depositId: deposit.id, merchantId });
  const { applied } = await applyFundingCredit(sql, target, {
    source: { method: "CRYPTO_DEPOSIT", depositId: deposit.id },
    amount,
    usdMicrosOf,
    // Valued at its confirmation, what arrived must be worth what the quote priced it at.
    valueNeeded: BigInt(target.transfer.source_usd_micros),
  });
  if (applied === 0n) return;
  const charged = BigInt(deposit.fee_usd_micros);
  const owed = feeMicros(usd - usdMicrosOf(applied), deposit.fee_bps, BigInt(deposit.fee_fixed_micros));
  // Never more than was taken (the merchant's schedule may have changed since the credit).
  const refund = owed < charged ? charged - owed : 0n;
  if (refund === 0n) return;
  const { entryId } = await postFundingFeeRefund(sql, { depositId: deposit.id, merchantId, refundUsdMicros: refund });
  await sql.query(
    "UPDATE funding_intent_credits SET fee_refund_usd_micros = $2, fee_refund_entry_id = $3 WHERE deposit_id = $1",
    [deposit.id, refund.toString(), entryId],
  );
  await sql.query(
    `UPDATE deposits SET fee_usd_micros = fee_usd_micros - $2, net_amount_usd_micros = net_amount_usd_micros + $2,
            updated_at = now()
      WHERE id = $1`,
    [deposit.id, refund.toString()],
  );
}

interface ReversedCredit {
  deposit_id: string;
  merchant_id: string;
  transfer_id: string;
  applied_amount: string;
  amount: string;
  hold_id: string | null;
}

const REVERSED_CREDITS = `
  SELECT c.deposit_id, i.merchant_id, i.transfer_id, c.applied_amount::text AS applied_amount,
         c.amount::text AS amount, c.hold_id
    FROM funding_intent_credits c JOIN funding_intents i ON i.id = c.intent_id JOIN deposits d ON d.id = c.deposit_id
   WHERE d.status = 'REVERSED' AND c.reversed_at IS NULL`;

/**
 * Funding deposits whose block left the chain (a reorg: the indexer posted the deposit's reversal,
 * taking the money back out of the merchant's available balance) stop counting, each once
 * (reversed_at) in its own transaction under the transfer's lock: unapplyFundingCredit says what
 * becomes of the transfer. The executor runs this before starting payouts, and a payout's start
 * checks its deposits under lock (transfer-execution.ts), so a reorg seen before execution never
 * pays out money that is gone.
 */
export async function unfundReversedDeposits(db: Database, limit: number, logger?: Logger): Promise<number> {
  const due = await db.query<ReversedCredit>(
    `${REVERSED_CREDITS} AND EXISTS (SELECT 1 FROM transfers t WHERE t.id = i.transfer_id AND ${DUE_FOR_TRY})
      ORDER BY c.created_at LIMIT $1`,
    [limit],
  );
  return eachLockedFunding(db, due.rows, "funding reversal", logger, {
    recheck: (sql, row) =>
      sql.query<ReversedCredit>(`${REVERSED_CREDITS} AND c.deposit_id = $1 FOR UPDATE OF c`, [row.deposit_id]),
    apply: async (sql, target, credit) => {
      await sql.query("UPDATE funding_intent_credits SET reversed_at = now() WHERE deposit_id = $1", [
        credit.deposit_id,
      ]);
      await unapplyFundingCredit(sql, target, {
        amount: BigInt(credit.amount),
        applied: BigInt(credit.applied_amount),
        holdId: credit.hold_id,
      });
    },
  });
}
