import type { Queryable } from "@mp/db";

/**
 * `ledger check` over bank returns (registered by registerTransferLedgerChecks): every policy return
 * has its `bank_policy_return` entry of what it owes, and every such entry is a return's; every
 * `bank_return_paid` entry is a returned policy return's, of what it owed, every `bank_return_closed`
 * a closed policy return's, of what it owed; a returned suspense line is out of suspense (none of its
 * stays open). A payout the payer's bank sent back (bank_return_bounces) is no longer its return's
 * current paid one, and its payment and its coming back are the return's amount, one the opposite
 * of the other's kind (bank_return_paid / bank_return_bounced, bank_suspense_out / a new
 * bank_suspense_in of the line); a line's later stay in suspense is such a payout's.
 * (returns_payable's total against the returns owed is check-ledger.ts's.)
 */
export async function bankReturnProblems(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ problem: string }>(
    `SELECT 'bank return ' || r.id || ' (' || r.origin || ') has no bank_policy_return entry of its '
            || r.owed_usd_micros || ' micro-USD' AS problem
       FROM bank_returns r
       LEFT JOIN journal_entries e ON e.id = r.taken_entry_id AND e.kind = 'bank_policy_return' AND e.reference = r.id::text
       LEFT JOIN journal_lines l ON l.entry_id = e.id AND l.line_no = 1
      WHERE r.origin <> 'suspense' AND l.amount IS DISTINCT FROM r.owed_usd_micros
     UNION ALL
     SELECT 'entry ' || e.id || ' (' || e.kind || ' ' || e.reference || ') is not recorded on a bank return'
       FROM journal_entries e
      WHERE e.kind IN ('bank_policy_return', 'bank_return_paid', 'bank_return_closed', 'bank_return_bounced')
        AND NOT EXISTS (SELECT 1 FROM bank_returns r WHERE e.reference IN (r.id::text, r.payout_key::text)
                         AND e.id IN (r.taken_entry_id, r.paid_entry_id, r.closed_entry_id))
        AND NOT EXISTS (SELECT 1 FROM bank_return_bounces b WHERE b.payout_key::text = e.reference
                         AND e.id IN (b.paid_entry_id, b.bounce_entry_id))
     UNION ALL
     SELECT 'entry ' || e.id || ' (bank_suspense_in ' || e.reference || ') is not a sent-back bank return''s'
       FROM journal_entries e
      WHERE e.kind = 'bank_suspense_in' AND position(':' IN e.reference) > 0
        AND NOT EXISTS (SELECT 1 FROM bank_return_bounces b JOIN bank_returns r ON r.id = b.return_id
                         WHERE e.reference = r.statement_line_id || ':' || b.payout_key AND b.bounce_entry_id = e.id)
     UNION ALL
     SELECT 'payout ' || b.payout_key || ' of bank return ' || b.return_id || ' was sent back, but its '
            || coalesce(p.kind, 'payment') || ' moved ' || coalesce(pl.amount::text, 'nothing') || ' and its '
            || coalesce(x.kind, 'return') || ' ' || coalesce(xl.amount::text, 'nothing') || ' micro-USD of '
            || r.owed_usd_micros
       FROM bank_return_bounces b JOIN bank_returns r ON r.id = b.return_id
       LEFT JOIN journal_entries p ON p.id = b.paid_entry_id
       LEFT JOIN journal_lines pl ON pl.entry_id = p.id AND pl.line_no = 1
       LEFT JOIN journal_entries x ON x.id = b.bounce_entry_id
       LEFT JOIN journal_lines xl ON xl.entry_id = x.id AND xl.line_no = 1
      WHERE r.state = 'returned' AND r.payout_key = b.payout_key
         OR (b.paid_entry_id IS NOT NULL AND (pl.amount IS DISTINCT FROM r.owed_usd_micros
                                              OR xl.amount IS DISTINCT FROM r.owed_usd_micros
                                              OR p.kind IS DISTINCT FROM CASE WHEN r.origin = 'suspense' THEN 'bank_suspense_out' ELSE 'bank_return_paid' END
                                              OR x.kind IS DISTINCT FROM CASE WHEN r.origin = 'suspense' THEN 'bank_suspense_in' ELSE 'bank_return_bounced' END))
         OR (b.paid_entry_id IS NULL AND r.origin <> 'suspense')
     UNION ALL
     SELECT 'bank return ' || r.id || ' is ' || r.state || ' but its ' || k.kind || ' entry moved '
            || coalesce(l.amount::text, 'nothing') || ' micro-USD of ' || r.owed_usd_micros
       FROM bank_returns r
       CROSS JOIN LATERAL (
         SELECT CASE WHEN r.state = 'returned' THEN 'bank_return_paid' ELSE 'bank_return_closed' END AS kind,
                CASE WHEN r.state = 'returned' THEN r.paid_entry_id ELSE r.closed_entry_id END AS entry_id) k
       LEFT JOIN journal_entries e ON e.id = k.entry_id AND e.kind = k.kind
       LEFT JOIN journal_lines l ON l.entry_id = e.id AND l.line_no = 1
      WHERE r.origin <> 'suspense' AND r.state IN ('returned', 'closed') AND l.amount IS DISTINCT FROM r.owed_usd_micros
     UNION ALL
     SELECT 'bank return ' || r.id || ' paid statement line ' || r.statement_line_id || ', which is still in suspense'
       FROM bank_returns r
      WHERE r.origin = 'suspense' AND r.state = 'returned'
        AND EXISTS (SELECT 1 FROM journal_entries i
                     WHERE i.kind = 'bank_suspense_in'
                       AND (i.reference = r.statement_line_id::text OR starts_with(i.reference, r.statement_line_id || ':'))
                       AND NOT EXISTS (SELECT 1 FROM journal_entries o WHERE o.kind = 'bank_suspense_out' AND o.reference = i.reference))`,
  );
  return rows.map((r) => r.problem);
}
