import { formatUsd } from "@mp/core";
import type { Queryable } from "@mp/db";
import { LEDGER_CURRENCY } from "./accounts.ts";
import { type BankSuspense, bankSuspenseProblems, readBankSuspense } from "./bank-suspense.ts";
import { registeredCheckProblems } from "./registered-checks.ts";

export interface LedgerCheckResult {
  ok: boolean;
  problems: string[];
  entries: number;
  merchants: number;
  /** Unmatched bank statement lines in bank_suspense, their total and the oldest's posting time. */
  suspense: BankSuspense;
}

const usd = (micros: bigint | string): string => `${formatUsd(BigInt(micros))} USD`;

/** An account's signed effect of a line, on its normal side (see migrations/0010). */
const SIGNED_AMOUNT = "CASE WHEN l.side = a.normal_side THEN l.amount ELSE -l.amount END";

/** Every entry has two or more lines, and its debits equal its credits in each currency. */
async function unbalancedEntries(q: Queryable): Promise<string[]> {
  const problems: string[] = [];
  const short = await q.query<{ id: string; kind: string; reference: string; lines: string }>(
    `SELECT e.id, e.kind, e.reference, count(l.entry_id)::text AS lines
       FROM journal_entries e LEFT JOIN journal_lines l ON l.entry_id = e.id
      GROUP BY e.id HAVING count(l.entry_id) < 2 ORDER BY e.id`,
  );
  for (const r of short.rows) {
    problems.push(`entry ${r.id} (${r.kind} ${r.reference}) has ${r.lines} line(s); an entry needs two or more`);
  }
  const unbalanced = await q.query<{
    id: string;
    kind: string;
    reference: string;
    currency: string;
    debits: string;
    credits: string;
  }>(
    `SELECT e.id, e.kind, e.reference, l.currency,
            coalesce(sum(l.amount) FILTER (WHERE l.side = 'debit'), 0)::text AS debits,
            coalesce(sum(l.amount) FILTER (WHERE l.side = 'credit'), 0)::text AS credits
       FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
      GROUP BY e.id, l.currency
     HAVING coalesce(sum(l.amount) FILTER (WHERE l.side = 'debit'), 0)
         <> coalesce(sum(l.amount) FILTER (WHERE l.side = 'credit'), 0)
      ORDER BY e.id`,
  );
  for (const r of unbalanced.rows) {
    problems.push(
      `entry ${r.id} (${r.kind} ${r.reference}) does not balance in ${r.currency}: debits ${formatUsd(BigInt(r.debits))}, credits ${formatUsd(BigInt(r.credits))}`,
    );
  }
  return problems;
}

/** Each derived account_balances row equals the sum of its account's lines. */
async function driftedBalances(q: Queryable): Promise<string[]> {
  const result = await q.query<{
    id: string;
    kind: string;
    merchant_id: string | null;
    recorded: string | null;
    from_lines: string;
  }>(
    `SELECT acc.id, acc.kind, acc.merchant_id, b.balance::text AS recorded, coalesce(s.total, 0)::text AS from_lines
       FROM ledger_accounts acc
       LEFT JOIN account_balances b ON b.account_id = acc.id
       LEFT JOIN (SELECT l.account_id, sum(${SIGNED_AMOUNT}) AS total
                    FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
                   GROUP BY l.account_id) s ON s.account_id = acc.id
      WHERE b.balance IS DISTINCT FROM coalesce(s.total, 0)
      ORDER BY acc.id`,
  );
  return result.rows.map((r) => {
    const owner = r.merchant_id ? ` of merchant ${r.merchant_id}` : "";
    const recorded = r.recorded === null ? "no balance row" : `balance row ${usd(r.recorded)}`;
    return `account ${r.kind}${owner} (${r.id}): ${recorded}, sum of its lines ${usd(r.from_lines)}`;
  });
}

/** SQL true when a deposit (row `deposits`) was taken back from available by its merchant's return policy. */
const RETURNED_BY_POLICY = `EXISTS (SELECT 1 FROM journal_entries p WHERE p.kind = 'policy_return' AND p.reference = deposits.id::text)`;

/**
 * SQL: what a deposit's `policy_return` entry moved on its line of account kind `kind` (0 when none):
 * the deposit's whole credit for late money, the part no intent took for an over-payment's excess.
 */
function policyReturned(kind: "merchant_available" | "returns_payable", deposit = "deposits"): string {
  return `coalesce((SELECT l.amount FROM journal_entries p JOIN journal_lines l ON l.entry_id = p.id
                      JOIN ledger_accounts a ON a.id = l.account_id
                     WHERE p.kind = 'policy_return' AND p.reference = ${deposit}.id::text AND a.kind = '${kind}'), 0)`;
}

/**
 * Each merchant's money in the ledger against the source documents, in one statement (one snapshot):
 * available + reserved + held = credited, unreversed crypto deposits (net) - those returned to their
 * payers + bank deposits (less what a bank return took back) - settled holds (payouts) + refunded payouts (a bank return given back);
 * reserved = open holds; held = the net of deposits still held.
 */
async function merchantReconciliation(q: Queryable): Promise<{ problems: string[]; merchants: number }> {
  const result = await q.query<{
    merchant_id: string;
    available: string;
    reserved: string;
    held: string;
    crypto: string;
    returned: string;
    still_held: string;
    bank: string;
    paid: string;
    refunded: string;
    open_holds: string;
  }>(
    `WITH ledger AS (
       SELECT a.merchant_id,
              coalesce(sum(${SIGNED_AMOUNT}) FILTER (WHERE a.kind = 'merchant_available'), 0) AS available,
              coalesce(sum(${SIGNED_AMOUNT}) FILTER (WHERE a.kind = 'merchant_reserved'), 0) AS reserved,
              coalesce(sum(${SIGNED_AMOUNT}) FILTER (WHERE a.kind = 'merchant_held'), 0) AS held
         FROM journal_lines l JOIN ledger_accounts a ON a.id = l.account_id
        WHERE a.merchant_id IS NOT NULL AND a.currency = $1
        GROUP BY a.merchant_id),
     crypto AS (
       SELECT merchant_id, sum(coalesce(net_amount_usd_micros, 0)) AS total,
              coalesce(sum(CASE WHEN hold_status = 'RETURNED' THEN net_amount_usd_micros
                                ELSE ${policyReturned("merchant_available")} END), 0) AS returned,
              coalesce(sum(net_amount_usd_micros) FILTER (WHERE hold_status = 'HELD'), 0) AS still_held
         FROM deposits
        WHERE credit_entry_id IS NOT NULL AND reversal_entry_id IS NULL GROUP BY merchant_id),
     bank AS (
       SELECT b.merchant_id,
              sum(b.amount_usd_micros)
                - coalesce(sum(r.owed_usd_micros) FILTER (WHERE r.taken_entry_id IS NOT NULL AND r.state <> 'closed'), 0) AS total
         FROM bank_deposits b LEFT JOIN bank_returns r ON r.bank_deposit_id = b.id GROUP BY b.merchant_id),
     holds AS (
       SELECT merchant_id,
              coalesce(sum(amount_usd_micros) FILTER (WHERE status = 'SETTLED'), 0) AS paid,
              coalesce(sum(amount_usd_micros) FILTER (WHERE status = 'HELD'), 0) AS open_holds
         FROM ledger_holds GROUP BY merchant_id),
     refunds AS (
       SELECT merchant_id, sum(refunded_usd_micros) AS total FROM transfer_payouts
        WHERE refunded_usd_micros IS NOT NULL GROUP BY merchant_id),
     seen AS (
       SELECT merchant_id FROM ledger UNION SELECT merchant_id FROM crypto
       UNION SELECT merchant_id FROM bank UNION SELECT merchant_id FROM holds UNION SELECT merchant_id FROM refunds)
     SELECT seen.merchant_id,
            coalesce(ledger.available, 0)::text AS available, coalesce(ledger.reserved, 0)::text AS reserved,
            coalesce(ledger.held, 0)::text AS held, coalesce(crypto.total, 0)::text AS crypto,
            coalesce(crypto.returned, 0)::text AS returned, coalesce(crypto.still_held, 0)::text AS still_held,
            coalesce(bank.total, 0)::text AS bank,
            coalesce(holds.paid, 0)::text AS paid, coalesce(refunds.total, 0)::text AS refunded,
            coalesce(holds.open_holds, 0)::text AS open_holds
       FROM seen
       LEFT JOIN ledger ON ledger.merchant_id = seen.merchant_id
       LEFT JOIN crypto ON crypto.merchant_id = seen.merchant_id
       LEFT JOIN bank ON bank.merchant_id = seen.merchant_id
       LEFT JOIN holds ON holds.merchant_id = seen.merchant_id
       LEFT JOIN refunds ON refunds.merchant_id = seen.merchant_id
      ORDER BY seen.merchant_id`,
    [LEDGER_CURRENCY],
  );
  const problems: string[] = [];
  for (const r of result.rows) {
    const inLedger = BigInt(r.available) + BigInt(r.reserved) + BigInt(r.held);
    const fromDocuments = BigInt(r.crypto) - BigInt(r.returned) + BigInt(r.bank) - BigInt(r.paid) + BigInt(r.refunded);
    if (inLedger !== fromDocuments) {
      // Held and returned money are named only where there is some, so the usual line stays short.
      const held = BigInt(r.held) === 0n ? "" : "+held";
      const returned = BigInt(r.returned) === 0n ? "" : ` - returned ${usd(r.returned)}`;
      const refunded = BigInt(r.refunded) === 0n ? "" : ` + refunded payouts ${usd(r.refunded)}`;
      problems.push(
        `merchant ${r.merchant_id}: ledger available+reserved${held} ${usd(inLedger)}, source documents ${usd(fromDocuments)} ` +
          `(crypto deposits ${usd(r.crypto)}${returned} + bank deposits ${usd(r.bank)} - payouts ${usd(r.paid)}${refunded}); difference ${usd(inLedger - fromDocuments)}`,
      );
    }
    if (BigInt(r.reserved) !== BigInt(r.open_holds)) {
      problems.push(`merchant ${r.merchant_id}: ledger reserved ${usd(r.reserved)}, open holds ${usd(r.open_holds)}`);
    }
    if (BigInt(r.held) !== BigInt(r.still_held)) {
      problems.push(`merchant ${r.merchant_id}: ledger held ${usd(r.held)}, held deposits ${usd(r.still_held)}`);
    }
  }
  return { problems, merchants: result.rows.length };
}

/**
 * Each source document points at the entry that moved its money, with the same merchant and amount,
 * and each deposit or bank-deposit entry is recorded on its document: names the document behind a
 * merchant-level difference.
 */
async function documentLinks(q: Queryable): Promise<string[]> {
  const result = await q.query<{ problem: string }>(
    `WITH credited AS (
       SELECT e.id, e.kind, e.reference, e.merchant_id, l.amount, a.kind AS account
         FROM journal_entries e
         JOIN journal_lines l ON l.entry_id = e.id
         JOIN ledger_accounts a ON a.id = l.account_id AND a.kind IN ('merchant_available', 'merchant_held')
        WHERE e.kind IN ('deposit_credit', 'bank_deposit')),
     -- A funding deposit's fee refund (funding-deposits.ts) adds to what its credit gave the merchant.
     refunded AS (
       SELECT e.reference, l.amount
         FROM journal_entries e
         JOIN journal_lines l ON l.entry_id = e.id
         JOIN ledger_accounts a ON a.id = l.account_id AND a.kind = 'merchant_available'
        WHERE e.kind = 'funding_fee_refund')
     SELECT 'deposit ' || d.id || ' of merchant ' || d.merchant_id || ': credit entry ' || d.credit_entry_id ||
            CASE WHEN c.id IS NULL THEN ' is not in the journal as its deposit_credit'
                 ELSE ' credited ' || c.amount || ' micro-USD to merchant ' || c.merchant_id ||
                      coalesce(' (and refunded its fee ' || r.amount || ')', '') ||
                      ', the deposit says ' || coalesce(d.net_amount_usd_micros::text, 'no amount') END AS problem
       FROM deposits d
       LEFT JOIN credited c ON c.id = d.credit_entry_id AND c.kind = 'deposit_credit' AND c.reference = d.id::text
       LEFT JOIN refunded r ON r.reference = d.id::text
      WHERE d.credit_entry_id IS NOT NULL
        AND (c.id IS NULL OR c.merchant_id <> d.merchant_id
             OR c.amount + coalesce(r.amount, 0) IS DISTINCT FROM d.net_amount_usd_micros)
     UNION ALL
     SELECT 'deposit ' || d.id || ' of merchant ' || d.merchant_id || ': credit entry ' || c.id || ' credited ' ||
            c.account || ', the deposit is ' || CASE WHEN d.hold_status IS NULL THEN 'not held' ELSE 'held' END
       FROM deposits d
       JOIN credited c ON c.id = d.credit_entry_id AND c.kind = 'deposit_credit' AND c.reference = d.id::text
      WHERE (d.hold_status IS NULL) <> (c.account = 'merchant_available')
     UNION ALL
     SELECT 'deposit ' || d.id || ' of merchant ' || d.merchant_id || ': ' || d.hold_status || ' by entry ' ||
            d.hold_resolution_entry_id || ', which is not in the journal as its ' ||
            CASE d.hold_status WHEN 'RELEASED' THEN 'held_release' ELSE 'held_return' END
       FROM deposits d
       LEFT JOIN journal_entries e ON e.id = d.hold_resolution_entry_id AND e.reference = d.id::text
             AND e.kind = CASE d.hold_status WHEN 'RELEASED' THEN 'held_release' ELSE 'held_return' END
      WHERE d.hold_resolution_entry_id IS NOT NULL AND e.id IS NULL
     UNION ALL
     SELECT 'entry ' || e.id || ' (' || e.kind || ' ' || e.reference || ') is not recorded on deposit ' || e.reference
       FROM journal_entries e
      WHERE e.kind IN ('held_release', 'held_return')
        AND NOT EXISTS (SELECT 1 FROM deposits d WHERE d.id::text = e.reference AND d.hold_resolution_entry_id = e.id)
     UNION ALL
     SELECT 'deposit ' || d.id || ' of merchant ' || d.merchant_id || ': reversal entry ' || d.reversal_entry_id ||
            CASE WHEN d.credit_entry_id IS NULL THEN ' recorded on a deposit with no credit entry'
                 ELSE ' is not in the journal as its deposit_reversal' END
       FROM deposits d
       LEFT JOIN journal_entries e ON e.id = d.reversal_entry_id AND e.kind = 'deposit_reversal' AND e.reference = d.id::text
      WHERE d.reversal_entry_id IS NOT NULL AND (e.id IS NULL OR d.credit_entry_id IS NULL)
     UNION ALL
     SELECT 'entry ' || e.id || ' (' || e.kind || ' ' || e.reference || ') of merchant ' || coalesce(e.merchant_id::text, 'none') ||
            ' is not recorded on deposit ' || e.reference
       FROM journal_entries e
      WHERE e.kind IN ('deposit_credit', 'deposit_reversal')
        AND NOT EXISTS (SELECT 1 FROM deposits d WHERE d.id::text = e.reference
                          AND e.id = CASE e.kind WHEN 'deposit_credit' THEN d.credit_entry_id ELSE d.reversal_entry_id END)
     UNION ALL
     SELECT 'bank deposit ' || b.id || ' of merchant ' || b.merchant_id || ': ledger entry ' || b.ledger_entry_id ||
            CASE WHEN c.id IS NULL THEN ' is not in the journal as its bank_deposit'
                 ELSE ' credited ' || c.amount || ' micro-USD to merchant ' || c.merchant_id ||
                      ', the bank deposit says ' || b.amount_usd_micros END
       FROM bank_deposits b
       LEFT JOIN credited c ON c.id = b.ledger_entry_id AND c.kind = 'bank_deposit' AND c.reference = b.id::text
      WHERE c.id IS NULL OR c.merchant_id <> b.merchant_id OR c.amount <> b.amount_usd_micros
     UNION ALL
     SELECT 'entry ' || e.id || ' (bank_deposit ' || e.reference || ') of merchant ' || coalesce(e.merchant_id::text, 'none') ||
            ' is not recorded on bank deposit ' || e.reference
       FROM journal_entries e
      WHERE e.kind = 'bank_deposit'
        AND NOT EXISTS (SELECT 1 FROM bank_deposits b WHERE b.id::text = e.reference AND b.ledger_entry_id = e.id)`,
  );
  return result.rows.map((r) => r.problem);
}

/**
 * returns_payable (money owed back to payers) equals what the returned deposits still owed (not yet
 * sent back on chain) owe: a held deposit's gross, what a `policy_return` entry took back (a late
 * deposit's gross, an over-payment's excess); each `deposit_return` entry is its deposit's, recorded
 * on its deposit_returns row, and moved what the row owed. Bank credits a `return` policy took back
 * (bank_returns with a `bank_policy_return` entry) are owed there too until the bank paid them (or an
 * operator closed the return: the money is the merchant's again).
 */
async function returnsOwed(q: Queryable): Promise<string[]> {
  const result = await q.query<{ ledger: string; documents: string }>(
    `SELECT coalesce((SELECT sum(b.balance) FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id
                       WHERE a.kind = 'returns_payable' AND a.currency = $1), 0)::text AS ledger,
            (coalesce((SELECT sum(CASE WHEN d.hold_status = 'RETURNED' THEN d.amount_usd_micros
                                      ELSE ${policyReturned("returns_payable", "d")} END) FROM deposits d
                       WHERE (d.hold_status = 'RETURNED' OR ${RETURNED_BY_POLICY.replaceAll("deposits.id", "d.id")})
                         AND d.reversal_entry_id IS NULL
                         AND NOT EXISTS (SELECT 1 FROM deposit_returns r WHERE r.deposit_id = d.id AND r.state = 'returned')),
                     0)
            + coalesce((SELECT sum(r.owed_usd_micros) FROM bank_returns r
                         WHERE r.taken_entry_id IS NOT NULL AND r.state NOT IN ('returned', 'closed')), 0))::text AS documents`,
    [LEDGER_CURRENCY],
  );
  const row = result.rows[0];
  const problems =
    !row || BigInt(row.ledger) === BigInt(row.documents)
      ? []
      : [
          `returns_payable ${usd(row.ledger)}, returned deposits and bank returns owed to their payers ${usd(row.documents)}`,
        ];
  const entries = await q.query<{ problem: string }>(
    `SELECT 'entry ' || e.id || ' (deposit_return ' || e.reference || ') ' ||
            CASE WHEN r.deposit_id IS NULL THEN 'is not recorded on a returned deposit'
                 ELSE 'moved ' || coalesce(l.amount::text, 'nothing') || ' micro-USD, the deposit owed ' || r.owed_usd_micros END AS problem
       FROM journal_entries e
       LEFT JOIN deposit_returns r ON r.deposit_id::text = e.reference AND r.entry_id = e.id AND r.state = 'returned'
       LEFT JOIN journal_lines l ON l.entry_id = e.id AND l.line_no = 1
      WHERE e.kind = 'deposit_return'
        AND (r.deposit_id IS NULL OR l.amount IS DISTINCT FROM r.owed_usd_micros)`,
  );
  return [...problems, ...entries.rows.map((r) => r.problem)];
}

/**
 * Proves the ledger: every entry balances per currency; every derived balance row equals the sum of
 * its lines; each merchant's balances reconcile with the deposits (held, released and returned
 * included), bank deposits and holds behind them; and the checks other domains registered hold
 * (registered-checks.ts: @mp/transfers' that each transfer's holds, fee and refund match its state
 * and that deposits to funding addresses paid the fee of what no intent took and are reserved
 * exactly while unapplied). Read-only. Each check is one statement, hence one consistent snapshot even on a pool; pass a
 * client in a REPEATABLE READ transaction to make all of them share one snapshot.
 */
export async function checkLedger(q: Queryable): Promise<LedgerCheckResult> {
  const problems = [
    ...(await unbalancedEntries(q)),
    ...(await driftedBalances(q)),
    ...(await documentLinks(q)),
    ...(await returnsOwed(q)),
    ...(await registeredCheckProblems(q)),
  ];
  const reconciliation = await merchantReconciliation(q);
  problems.push(...reconciliation.problems);
  const suspense = await readBankSuspense(q);
  problems.push(...(await bankSuspenseProblems(q, suspense)));
  const entries = await q.query<{ n: string }>("SELECT count(*)::text AS n FROM journal_entries");
  return {
    ok: problems.length === 0,
    problems,
    entries: Number(entries.rows[0]?.n ?? 0),
    merchants: reconciliation.merchants,
    suspense,
  };
}
