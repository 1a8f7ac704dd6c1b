import { formatUsd } from "@mp/core";
import type { Queryable } from "@mp/db";

/**
 * Each transfer's ledger footprint against its state (issue 15):
 *   - its holds (a BALANCE transfer's one, a JIT transfer's one per applied customer credit) are all
 *     HELD while it is unfinished (awaiting funds, FUNDED, PROCESSING), all SETTLED once COMPLETED
 *     (and REFUNDED after a bank return), all RELEASED when it ended otherwise (CANCELED, EXPIRED,
 *     FAILED);
 *   - a USD-funded completed transfer settled exactly its source amount;
 *   - its fee entry exists exactly when it completed with a fee, for the quoted fee;
 *   - its refund entry exists exactly when a completed payout came back (REFUNDED with settled holds),
 *     for what it settled, and is the one its payout row records;
 *   - its bank payout row, if any, is in the state that goes with the transfer's;
 *   - the hold of a funding deposit a reorg took back is released (and no longer counts above);
 * and no transfer_fee or transfer_refund entry names anything but a transfer. One statement.
 */
interface TransferCheckRow {
  id: string;
  merchant_id: string;
  status: string;
  holds: number;
  held: number;
  settled: number;
  released: number;
  settled_amount: string;
  source_usd_micros: string;
  source_asset: string;
  fee_usd_micros: string;
  fee_amount: string | null;
  refund_id: string | null;
  refund_amount: string | null;
  payout_status: string | null;
  payout_refund_entry_id: string | null;
  payout_refunded: string | null;
}

const UNFINISHED = ["AWAITING_MERCHANT_FUNDING", "FUNDED", "PROCESSING"];
const PAYOUT_STATES: Record<string, string[]> = {
  PROCESSING: ["REQUESTED", "PENDING", "SENT"],
  COMPLETED: ["COMPLETED"],
  FAILED: ["FAILED"],
  REFUNDED: ["RETURNED"],
};

const usd = (micros: string | null): string => (micros === null ? "none" : `${formatUsd(BigInt(micros))} USD`);

function expectedHolds(row: TransferCheckRow): "HELD" | "SETTLED" | "RELEASED" | "SETTLED or RELEASED" {
  if (UNFINISHED.includes(row.status)) return "HELD";
  if (row.status === "COMPLETED") return "SETTLED";
  if (row.status === "REFUNDED") return "SETTLED or RELEASED";
  return "RELEASED";
}

/** The problems of one transfer's row: empty when its ledger footprint fits its state. */
function problemsOf(row: TransferCheckRow): string[] {
  const name = `transfer ${row.id} of merchant ${row.merchant_id} (${row.status})`;
  const problems: string[] = [];
  const expected = expectedHolds(row);
  const fits =
    (expected === "HELD" && row.held === row.holds) ||
    (expected === "RELEASED" && row.released === row.holds) ||
    (expected !== "HELD" && expected !== "RELEASED" && row.settled === row.holds) ||
    (expected === "SETTLED or RELEASED" && row.released === row.holds);
  if (!fits) {
    problems.push(
      `${name}: holds should be ${expected}; of ${row.holds}: ${row.held} held, ${row.settled} settled, ${row.released} released`,
    );
  }
  const paidOut = row.holds > 0 && row.settled === row.holds;
  const completed = row.status === "COMPLETED" || (row.status === "REFUNDED" && paidOut);
  if (completed && row.source_asset === "USD" && row.settled_amount !== row.source_usd_micros) {
    problems.push(`${name}: settled ${usd(row.settled_amount)}, its source amount is ${usd(row.source_usd_micros)}`);
  }
  const wantFee = completed && BigInt(row.fee_usd_micros) > 0n ? row.fee_usd_micros : null;
  if (wantFee !== row.fee_amount) {
    problems.push(`${name}: fee entry ${usd(row.fee_amount)}, expected ${usd(wantFee)}`);
  }
  const wantRefund = row.status === "REFUNDED" && paidOut ? row.settled_amount : null;
  if (wantRefund !== row.refund_amount) {
    problems.push(`${name}: refund entry ${usd(row.refund_amount)}, expected ${usd(wantRefund)}`);
  }
  if (row.refund_id !== row.payout_refund_entry_id || row.refund_amount !== row.payout_refunded) {
    problems.push(
      `${name}: refund entry ${row.refund_id ?? "none"} of ${usd(row.refund_amount)}, its payout records ` +
        `${row.payout_refund_entry_id ?? "none"} of ${usd(row.payout_refunded)}`,
    );
  }
  if (row.payout_status !== null && !(PAYOUT_STATES[row.status] ?? []).includes(row.payout_status)) {
    problems.push(`${name}: its bank payout is ${row.payout_status}`);
  }
  return problems;
}

export async function transferProblems(q: Queryable): Promise<string[]> {
  const result = await q.query<TransferCheckRow>(
    `WITH funding AS (
       SELECT id AS transfer_id, hold_id FROM transfers WHERE hold_id IS NOT NULL
       UNION ALL
       SELECT i.transfer_id, c.hold_id FROM funding_intent_credits c JOIN funding_intents i ON i.id = c.intent_id
        WHERE c.hold_id IS NOT NULL AND c.reversed_at IS NULL),
     holds AS (
       SELECT f.transfer_id, count(*)::int AS holds,
              count(*) FILTER (WHERE h.status = 'HELD')::int AS held,
              count(*) FILTER (WHERE h.status = 'SETTLED')::int AS settled,
              count(*) FILTER (WHERE h.status = 'RELEASED')::int AS released,
              coalesce(sum(h.amount_usd_micros) FILTER (WHERE h.status = 'SETTLED'), 0) AS settled_amount
         FROM funding f LEFT JOIN ledger_holds h ON h.id = f.hold_id GROUP BY f.transfer_id),
     entries AS (
       SELECT e.id, e.kind, e.reference, sum(l.amount) FILTER (WHERE l.side = 'debit') AS amount
         FROM journal_entries e JOIN journal_lines l ON l.entry_id = e.id
        WHERE e.kind IN ('transfer_fee', 'transfer_refund') GROUP BY e.id)
     SELECT t.id, t.merchant_id, t.status, coalesce(h.holds, 0) AS holds, coalesce(h.held, 0) AS held,
            coalesce(h.settled, 0) AS settled, coalesce(h.released, 0) AS released,
            coalesce(h.settled_amount, 0)::text AS settled_amount, q.source_usd_micros::text AS source_usd_micros,
            q.source_asset, q.fee_usd_micros::text AS fee_usd_micros, fee.amount::text AS fee_amount,
            refund.id AS refund_id, refund.amount::text AS refund_amount, p.status AS payout_status,
            p.refund_entry_id AS payout_refund_entry_id, p.refunded_usd_micros::text AS payout_refunded
       FROM transfers t
       JOIN transfer_quotes q ON q.id = t.quote_id
       LEFT JOIN holds h ON h.transfer_id = t.id
       LEFT JOIN entries fee ON fee.kind = 'transfer_fee' AND fee.reference = t.id::text
       LEFT JOIN entries refund ON refund.kind = 'transfer_refund' AND refund.reference = t.id::text
       LEFT JOIN transfer_payouts p ON p.transfer_id = t.id
      ORDER BY t.created_at, t.id`,
  );
  const problems = result.rows.flatMap(problemsOf);
  const orphans = await q.query<{ id: string; kind: string; reference: string }>(
    `SELECT e.id, e.kind, e.reference FROM journal_entries e
      WHERE e.kind IN ('transfer_fee', 'transfer_refund')
        AND NOT EXISTS (SELECT 1 FROM transfers t WHERE t.id::text = e.reference AND t.merchant_id = e.merchant_id)
      ORDER BY e.id`,
  );
  for (const r of orphans.rows)
    problems.push(`entry ${r.id} (${r.kind} ${r.reference}) names no transfer of its merchant`);
  // A funding deposit a reorg took back no longer counts for its transfer: its hold must be released.
  const reversed = await q.query<{ transfer_id: string; hold_id: string; status: string }>(
    `SELECT i.transfer_id, c.hold_id, h.status FROM funding_intent_credits c
       JOIN funding_intents i ON i.id = c.intent_id JOIN ledger_holds h ON h.id = c.hold_id
      WHERE c.reversed_at IS NOT NULL AND h.status <> 'RELEASED' ORDER BY i.transfer_id, c.hold_id`,
  );
  for (const r of reversed.rows)
    problems.push(`transfer ${r.transfer_id}: hold ${r.hold_id} of a reversed funding deposit is ${r.status}`);
  return problems;
}
