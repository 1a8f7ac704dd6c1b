import type { Queryable } from "@mp/db";

/**
 * The drains' ledger check (registered with `ledger check` by drain-ledger-check.ts), read-only:
 * - a drained deposit was credited without the deposit fee (its drain takes the product's fee);
 * - a drain's transfer holds no more than its deposit's credit, is a BALANCE transfer of the same
 *   merchant, and a drain that paid nothing (not_paid, canceled) has none;
 * - a canceled drain's deposit is reversed; a paid or paying drain's deposit was confirmed before.
 */
export async function drainProblems(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ problem: string }>(
    `SELECT 'drain ' || ld.id || ': ' || p.problem AS problem
       FROM liquidation_drains ld
       JOIN deposits d ON d.id = ld.deposit_id
       LEFT JOIN transfers t ON t.id = ld.transfer_id
       LEFT JOIN transfer_quotes qu ON qu.id = t.quote_id
       CROSS JOIN LATERAL (VALUES
         (CASE WHEN d.status <> 'PENDING' AND coalesce(d.fee_usd_micros, 0) <> 0
               THEN 'its deposit paid the deposit fee too' END),
         (CASE WHEN qu.source_usd_micros > d.net_amount_usd_micros
               THEN 'its transfer holds ' || qu.source_usd_micros || ' micro-USD, more than the deposit''s credit '
                    || d.net_amount_usd_micros END),
         (CASE WHEN t.id IS NOT NULL AND (t.funding_mode <> 'BALANCE' OR t.merchant_id <> ld.merchant_id)
               THEN 'its transfer is not a BALANCE transfer of its merchant' END),
         (CASE WHEN ld.state IN ('not_paid', 'canceled', 'awaiting_funds') AND ld.transfer_id IS NOT NULL
               THEN 'it is ' || ld.state || ' but has a transfer' END),
         (CASE WHEN ld.state = 'canceled' AND d.status <> 'REVERSED' THEN 'canceled but its deposit is not reversed' END)
       ) AS p(problem)
      WHERE p.problem IS NOT NULL
      ORDER BY ld.id`,
  );
  return rows.map((r) => r.problem);
}
