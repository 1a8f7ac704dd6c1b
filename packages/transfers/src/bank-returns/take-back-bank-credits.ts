import { AppError, formatUsd, iso, type Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { appendResourceEvent } from "@mp/events";
import { postBankPolicyReturn } from "@mp/ledger";
import { CREDIT_OF_FAILED_PAYOUT_JOINS } from "../owed-credits.ts";
import { BANK_PAYMENT_SENT_BACK_NOTE, bankSentBackFlag } from "./bank-return-notes.ts";
import { CENT_MICROS, openBankReturn } from "./bank-return-store.ts";

interface OwedBankCredit {
  bank_deposit_id: string;
  intent_id: string;
  transfer_id: string;
  merchant_id: string;
  line_id: string | null;
  /** What goes back, whole cents (a bank pays cents; a sub-cent rest stays credited). */
  owed: string;
  origin: "late_funding" | "excess" | "failed_payout";
}

/**
 * Bank credits to a transfer's BANK_TRANSFER intent that are not the merchant's, of merchants whose
 * return policy is `return`, not returned yet (no bank return for the bank deposit): late money
 * (funding_intent_credits outcome LATE), the excess of an over-payment (APPLIED, excess_amount > 0),
 * and every credit a customer-funded transfer took when its payout failed (transfer FAILED: the
 * failure released its holds to available), whole. The crypto twin is late-funding-returns.ts.
 */
async function bankCreditsToReturn(db: Queryable, batch: number): Promise<OwedBankCredit[]> {
  const { rows } = await db.query<OwedBankCredit>(
    `WITH owed AS (
       SELECT c.bank_deposit_id, c.intent_id, i.transfer_id, b.merchant_id, c.created_at,
              CASE WHEN failed THEN c.amount ELSE c.excess_amount END AS owed,
              CASE WHEN failed THEN 'failed_payout' WHEN c.outcome = 'LATE' THEN 'late_funding' ELSE 'excess' END AS origin
         FROM funding_intent_credits c
         JOIN bank_deposits b ON b.id = c.bank_deposit_id
         JOIN merchants m ON m.id = b.merchant_id AND m.return_policy = 'return'
         ${CREDIT_OF_FAILED_PAYOUT_JOINS}
        WHERE (c.excess_amount > 0 OR failed)
          AND NOT EXISTS (SELECT 1 FROM bank_returns r WHERE r.bank_deposit_id = c.bank_deposit_id))
     SELECT o.bank_deposit_id, o.intent_id, o.transfer_id, o.merchant_id, l.id AS line_id,
            (o.owed - mod(o.owed, $2))::text AS owed, o.origin
       FROM owed o LEFT JOIN bank_statement_lines l ON l.bank_deposit_id = o.bank_deposit_id
      WHERE o.owed >= $2
      ORDER BY o.created_at LIMIT $1`,
    [batch, CENT_MICROS.toString()],
  );
  return rows;
}

/** The bank deposit as the API shows it (the object of `bank_deposit.returned`, `.return_sent`, `.return_failed`), locked. */
export async function lockedBankDeposit(sql: Queryable, id: string) {
  const { rows } = await sql.query<{
    id: string;
    virtual_account_id: string;
    customer_id: string;
    amount: string;
    reference: string | null;
    status: "CREDITED";
    credited_at: Date;
    created_at: Date;
  }>(
    `SELECT id, virtual_account_id, customer_id, amount_usd_micros::text AS amount, reference, status, credited_at,
            created_at FROM bank_deposits WHERE id = $1 FOR UPDATE`,
    [id],
  );
  const row = rows[0];
  if (!row) throw new AppError("internal_error", `bank deposit ${id} is missing`);
  return {
    ...row,
    amount: formatUsd(BigInt(row.amount)),
    currency: "USD" as const,
    credited_at: iso(row.credited_at),
    created_at: iso(row.created_at),
  };
}

/** The intent's flag, or the failed transfer's reason, says where the money went. */
async function noteBankReturn(sql: Queryable, credit: OwedBankCredit): Promise<void> {
  if (credit.origin === "failed_payout") {
    await sql.query(
      `UPDATE transfers SET failure_reason = left(failure_reason, 500 - length($2)) || $2
        WHERE id = $1 AND strpos(coalesce(failure_reason, ''), $2) = 0`,
      [credit.transfer_id, BANK_PAYMENT_SENT_BACK_NOTE],
    );
    return;
  }
  await sql.query(
    `UPDATE funding_intents SET flag_message = replace(flag_message, $2, $3)
      WHERE id = $1 AND flag_code IN ('LATE_PAYMENT', 'AMOUNT_MISMATCH')`,
    [credit.intent_id, "added to the merchant's available balance", bankSentBackFlag(credit.bank_deposit_id)],
  );
}

/**
 * One pass of the `return` policy over bank money (worker role): each such credit, in its own
 * transaction under its transfer's and bank deposit's locks, becomes a bank return (once per bank
 * deposit), its amount taken from merchant_available into returns_payable (postBankPolicyReturn),
 * `bank_deposit.returned` appended. The return is then sent by bank-return-pass.ts. A credit the
 * merchant has spent already (available below it) stays credited, logged. Returns how many went back.
 */
export async function takeBackBankCredits(db: Database, batch: number, logger?: Logger): Promise<number> {
  let taken = 0;
  for (const credit of await bankCreditsToReturn(db, batch)) {
    try {
      const opened = await db.tx(async (sql) => {
        // The transfer's lock first, as every writer of transfers and their payments takes them.
        await sql.query("SELECT 1 FROM transfers WHERE id = $1 FOR UPDATE", [credit.transfer_id]);
        const deposit = await lockedBankDeposit(sql, credit.bank_deposit_id);
        const bankReturn = await openBankReturn(sql, {
          origin: credit.origin,
          owedUsdMicros: BigInt(credit.owed),
          statementLineId: credit.line_id,
          bankDepositId: credit.bank_deposit_id,
          merchantId: credit.merchant_id,
          transferId: credit.transfer_id,
        });
        if (!bankReturn) return undefined;
        const { entryId } = await postBankPolicyReturn(sql, {
          returnId: bankReturn.id,
          merchantId: credit.merchant_id,
          owedUsdMicros: BigInt(credit.owed),
        });
        await sql.query("UPDATE bank_returns SET taken_entry_id = $2 WHERE id = $1", [bankReturn.id, entryId]);
        await appendResourceEvent(sql, credit.merchant_id, "bank_deposit.returned", deposit);
        await noteBankReturn(sql, credit);
        return bankReturn;
      });
      if (!opened) continue;
      taken++;
      logger?.info(
        { bankDepositId: credit.bank_deposit_id, returnId: opened.id, state: opened.state, origin: credit.origin },
        "bank credit taken back for its payer",
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      logger?.warn(
        { bankDepositId: credit.bank_deposit_id, code: error.code, err: error.message },
        "bank credit not taken back; it stays credited",
      );
    }
  }
  return taken;
}
