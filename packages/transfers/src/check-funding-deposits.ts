import type { Queryable } from "@mp/db";

/**
 * Deposits to transfers' funding addresses against the rule that fees follow the money's purpose
 * (@mp/ledger's funding-deposits.ts), one statement:
 *   - a deposit of an intent's asset to its address, confirmed, unreversed and not yet applied, is
 *     reserved by its unapplied-funding hold (its net, when it has one); the hold is released once
 *     the deposit is applied or reversed;
 *   - every funding_fee_refund entry is recorded on the applied credit of its deposit, for the same
 *     merchant and amount, and is at most the fee the deposit's credit took;
 *   - a deposit shows the fee it paid: its credit's fee less its refund;
 *   - a deposit an intent took whole paid no fee; one that came late kept its whole fee.
 */
export async function fundingDepositProblems(q: Queryable): Promise<string[]> {
  const result = await q.query<{ problem: string }>(
    `WITH credit AS (
       SELECT e.reference, e.merchant_id,
              sum(l.amount) FILTER (WHERE a.kind = 'fee_revenue') AS fee,
              sum(l.amount) FILTER (WHERE a.kind IN ('merchant_available', 'merchant_held')) AS net
         FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id JOIN ledger_accounts a ON a.id = l.account_id
        WHERE e.kind = 'deposit_credit' GROUP BY e.id),
     refund AS (
       SELECT e.id, e.reference, e.merchant_id, l.amount
         FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
         JOIN ledger_accounts a ON a.id = l.account_id AND a.kind = 'merchant_available'
        WHERE e.kind = 'funding_fee_refund'),
     funding AS (
       SELECT d.id, d.merchant_id, d.status, d.hold_status, d.fee_usd_micros, d.net_amount_usd_micros,
              d.reversal_entry_id, c.outcome, c.excess_amount, c.fee_refund_entry_id, c.fee_refund_usd_micros,
              h.status AS hold, cr.fee AS credited_fee, r.amount AS refunded
         FROM deposits d JOIN funding_intents i ON i.deposit_destination_id = d.destination_id AND i.asset = d.asset
         LEFT JOIN funding_intent_credits c ON c.deposit_id = d.id
         LEFT JOIN ledger_holds h ON h.id = 'funding-deposit:' || d.id::text
         LEFT JOIN credit cr ON cr.reference = d.id::text
         LEFT JOIN refund r ON r.reference = d.id::text
        WHERE d.credit_entry_id IS NOT NULL)
     SELECT 'deposit ' || id || ' of merchant ' || merchant_id || ' to a funding address: ' ||
            CASE WHEN hold = 'HELD' THEN 'applied or reversed, yet its unapplied-funding hold is still HELD'
                 ELSE 'confirmed and not applied, yet its net is not reserved (hold ' || coalesce(hold, 'missing') || ')'
            END AS problem
       FROM funding
      WHERE coalesce(hold = 'HELD', false) <> (status = 'CONFIRMED' AND reversal_entry_id IS NULL AND hold_status IS NULL
                                AND outcome IS NULL AND net_amount_usd_micros > 0)
     UNION ALL
     SELECT 'deposit ' || id || ' of merchant ' || merchant_id || ': fee ' || fee_usd_micros ||
            ' micro-USD, its credit took ' || coalesce(credited_fee::text, 'none') || ' and refunded ' ||
            coalesce(refunded::text, 'nothing')
       FROM funding
      WHERE fee_usd_micros IS DISTINCT FROM credited_fee - coalesce(refunded, 0) OR refunded > credited_fee
     UNION ALL
     SELECT 'deposit ' || id || ' of merchant ' || merchant_id || ': taken whole by its intent, yet it paid a fee of ' ||
            fee_usd_micros || ' micro-USD'
       FROM funding WHERE outcome = 'APPLIED' AND excess_amount = 0 AND fee_usd_micros <> 0
     UNION ALL
     SELECT 'deposit ' || id || ' of merchant ' || merchant_id || ': came late, yet its fee was refunded'
       FROM funding WHERE outcome = 'LATE' AND refunded IS NOT NULL
     UNION ALL
     SELECT 'entry ' || r.id || ' (funding_fee_refund ' || r.reference || ') of merchant ' ||
            coalesce(r.merchant_id::text, 'none') || ' is not the refund recorded on an applied credit of that deposit'
       FROM refund r
      WHERE NOT EXISTS (SELECT 1 FROM funding_intent_credits c JOIN deposits d ON d.id = c.deposit_id
                         WHERE c.deposit_id::text = r.reference AND c.fee_refund_entry_id = r.id
                           AND c.fee_refund_usd_micros = r.amount AND c.applied_amount > 0
                           AND d.merchant_id = r.merchant_id)
     UNION ALL
     SELECT 'hold ' || h.id || ' of merchant ' || h.merchant_id || ' names no deposit of its merchant to a funding address'
       FROM ledger_holds h
      WHERE h.id LIKE 'funding-deposit:%'
        AND NOT EXISTS (SELECT 1 FROM deposits d JOIN funding_intents i ON i.deposit_destination_id = d.destination_id
                         WHERE 'funding-deposit:' || d.id::text = h.id AND d.merchant_id = h.merchant_id)`,
  );
  return result.rows.map((r) => r.problem);
}
