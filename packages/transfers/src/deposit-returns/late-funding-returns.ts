import { AppError, type Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { appendDepositEvents } from "@mp/events";
import { postPolicyReturn } from "@mp/ledger";
import { recordSanctionsMatch, type SanctionsMatchInput } from "@mp/providers";
import { CREDIT_OF_FAILED_PAYOUT_JOINS } from "../owed-credits.ts";
import { type ReturnDeps, sendDepositReturn } from "./send-deposit-return.ts";

interface LateDeposit {
  deposit_id: string;
  intent_id: string;
  transfer_id: string;
  merchant_id: string;
  /**
   * The deposit's USD value, its amount and the part of it taken back from the merchant: all but
   * what its intent took (0 for late money), all of it when its transfer's payout failed.
   */
  usd: string;
  amount: string;
  applied: string;
  /** The fee the deposit finally paid: that of the part no intent took. */
  fee: string;
  /** Set when its transfer's payout failed: the customer's whole payment goes back. */
  origin: "failed_payout" | null;
}

/**
 * Crypto payments to a transfer's funding address that are not the merchant's, of merchants whose
 * return policy is `return`, not taken back yet (confirmed, unreversed, no `policy_return` entry):
 * late money (its intent funded, canceled or expired first: funding_intent_credits outcome LATE), the
 * excess of an over-payment (outcome APPLIED, excess_amount > 0), and every payment a customer-funded
 * transfer took when its payout failed (transfer FAILED: the failure released its holds to available).
 * An over-payment whose excess went back before its transfer failed is not seen again: the part its
 * intent took stays with the merchant (one policy_return per deposit; docs/returns.md says so).
 */
async function lateDepositsToReturn(db: Database, batch: number): Promise<LateDeposit[]> {
  const { rows } = await db.query<LateDeposit>(
    `WITH owed AS (
       SELECT d.id AS deposit_id, c.intent_id, i.transfer_id, d.merchant_id, d.amount_usd_micros AS usd,
              d.amount_raw AS amount, d.fee_usd_micros AS fee, c.created_at,
              CASE WHEN failed THEN 0 ELSE c.applied_amount END AS applied,
              CASE WHEN failed THEN 'failed_payout' END AS origin
         FROM funding_intent_credits c
         JOIN deposits d ON d.id = c.deposit_id
         JOIN merchants m ON m.id = d.merchant_id AND m.return_policy = 'return'
         ${CREDIT_OF_FAILED_PAYOUT_JOINS}
        WHERE (c.excess_amount > 0 OR failed) AND d.status = 'CONFIRMED' AND d.reversal_entry_id IS NULL
          AND d.credit_entry_id IS NOT NULL AND d.hold_status IS NULL
          AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'policy_return' AND e.reference = d.id::text)
          AND NOT EXISTS (SELECT 1 FROM sanctions_matches s WHERE s.context = 'return' AND s.reference = d.id::text))
     SELECT deposit_id, intent_id, transfer_id, merchant_id, usd::text, amount::text, applied::text, fee::text, origin
       FROM owed WHERE usd - div(usd * applied, amount) > fee
      ORDER BY created_at LIMIT $1`,
    [batch],
  );
  return rows;
}

/** A failed transfer's reason says, once, that the customer's payment went back to its payer. */
async function noteFailedPayoutReturn(client: Queryable, late: LateDeposit): Promise<void> {
  const note = "; the customer's payment was sent back to its payer by the merchant's return policy";
  await client.query(
    `UPDATE transfers SET failure_reason = left(failure_reason, 500 - length($2)) || $2
      WHERE id = $1 AND strpos(coalesce(failure_reason, ''), $2) = 0`,
    [late.transfer_id, note],
  );
}

/**
 * The USD value of the part of a deposit no intent took, pro rata of its valuation as the funding
 * pass computed it (fund-from-crypto-deposits: the intent's hold is rounded down, so this is what
 * the merchant's balances got beyond the hold).
 */
export function unappliedUsdMicros(deposit: { usd: string; amount: string; applied: string }): bigint {
  const usd = BigInt(deposit.usd);
  return usd - (usd * BigInt(deposit.applied)) / BigInt(deposit.amount);
}

/**
 * One pass of the `return` policy over late crypto funding, over-payments' excess and the payments of
 * customer-funded transfers whose payout failed (worker role, with the transfers): each such deposit, in its own transaction under its row lock, is taken back from the merchant's
 * available balance into returns_payable (postPolicyReturn), `deposit.returned` is appended, and its
 * return is handed to the treasury (sendDepositReturn: to its sender less the network fee; payable
 * when smaller than its fee). A deposit whose net the merchant has spent already, or whose sender is
 * listed, stays credited (logged; the listed match recorded). Returns how many were taken back.
 */
export async function returnLateFunding(
  db: Database,
  deps: Omit<ReturnDeps, "refused"> & { networkFeeUsdMicros: bigint },
  batch: number,
  logger?: Logger,
): Promise<number> {
  let returned = 0;
  for (const late of await lateDepositsToReturn(db, batch)) {
    const refused: SanctionsMatchInput[] = [];
    try {
      const sent = await db.tx(async (client) => {
        // The transfer's lock first, as every writer of transfers and their deposits takes them.
        await client.query("SELECT 1 FROM transfers WHERE id = $1 FOR UPDATE", [late.transfer_id]);
        await client.query("SELECT 1 FROM deposits WHERE id = $1 FOR UPDATE", [late.deposit_id]);
        const fee = BigInt(late.fee);
        await postPolicyReturn(client, {
          depositId: late.deposit_id,
          merchantId: late.merchant_id,
          netUsdMicros: unappliedUsdMicros(late) - fee,
          feeUsdMicros: fee,
        });
        await appendDepositEvents(client, [{ type: "deposit.returned", depositId: late.deposit_id }]);
        if (late.origin === "failed_payout") await noteFailedPayoutReturn(client, late);
        // The intent's flag (LATE_PAYMENT, or AMOUNT_MISMATCH of an excess) says where the money went.
        else
          await client.query(
            `UPDATE funding_intents SET flag_message = replace(flag_message, $2, $3)
            WHERE id = $1 AND flag_code IN ('LATE_PAYMENT', 'AMOUNT_MISMATCH')`,
            [
              late.intent_id,
              "added to the merchant's available balance",
              `sent back to its payer by the merchant's return policy (deposit ${late.deposit_id})`,
            ],
          );
        return sendDepositReturn(
          client,
          { ...deps, refused },
          {
            depositId: late.deposit_id,
            networkFeeUsdMicros: deps.networkFeeUsdMicros,
            origin: late.origin ?? undefined,
          },
        );
      });
      returned++;
      logger?.info({ depositId: late.deposit_id, state: sent.state, reason: sent.reason }, "late funding returned");
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      logger?.warn({ depositId: late.deposit_id, code: error.code, err: error.message }, "late funding not returned");
    } finally {
      for (const match of refused) await db.tx((client) => recordSanctionsMatch(client, match));
    }
  }
  return returned;
}
