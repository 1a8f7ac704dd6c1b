import type { Queryable } from "@mp/db";
import { depositsOfWallet } from "@mp/events";
import { appendRequestEvents, type PaymentRequestEventType } from "./request-events.ts";
import { type FigurePayment, type Figures, requestFigures } from "./request-figures.ts";
import {
  type PaymentRequestRow,
  type PresentSettings,
  presentPaymentRequest,
  selectPaymentRequestRows,
} from "./request-resource.ts";
import type { PaymentFlag, PaymentRequestStatus } from "./statuses.ts";

interface WalletDeposit {
  id: string;
  chain: string;
  asset: string;
  amount_raw: string;
  status: FigurePayment["status"];
  hold_status: string | null;
  seen_at: Date;
  /** As the matcher counted it last time (null: not seen before). */
  counted_status: FigurePayment["status"] | null;
  counted_flag: PaymentFlag | null;
  reported: boolean | null;
}

/**
 * Every deposit ever recorded to the request's wallet, with what the matcher stored of it. A
 * transaction re-mined after a reorganisation is a new deposit row: it was first seen when the
 * earliest row of its identity was, so a payment made in time stays in time.
 */
const WALLET_DEPOSITS = `
  SELECT d.id, d.chain, d.asset, d.amount_raw::text AS amount_raw, d.status, d.hold_status,
         (SELECT min(x.created_at) FROM deposits x
           WHERE x.tx_hash = d.tx_hash AND x.chain = d.chain AND x.position = d.position) AS seen_at,
         p.deposit_status AS counted_status, p.flag AS counted_flag, p.reported
    FROM deposits d LEFT JOIN payment_request_payments p ON p.deposit_id = d.id
   WHERE ${depositsOfWallet("$1", "d")}
   ORDER BY d.created_at, d.id`;

/** The event of entering each status (open is re-entered silently: a reorg says so itself). */
const STATUS_EVENTS: Partial<Record<PaymentRequestStatus, PaymentRequestEventType>> = {
  processing: "payment_request.processing",
  paid: "payment_request.paid",
  underpaid: "payment_request.underpaid",
  overpaid: "payment_request.overpaid",
  expired: "payment_request.expired",
};

const sameFigures = (row: PaymentRequestRow, f: Figures): boolean =>
  row.status === f.status &&
  row.amount_paid === f.amountPaid.toString() &&
  row.amount_pending === f.amountPending.toString() &&
  row.amount_missing === f.amountMissing.toString() &&
  row.amount_excess === f.amountExcess.toString();

/**
 * Brings one request up to date with the deposits to its wallet, in the caller's transaction: the
 * request row is locked first (two matchers, or a cancel, serialise on it), its pending changes
 * deleted BEFORE its deposits are read (a change committed after that read leaves a new row, seen
 * at the next pass), then its payments recorded, its figures recomputed and, when anything moved,
 * stored with its events. Only the indexer credits money: this counts it. Returns whether the
 * request changed; undefined when there is no such request.
 */
export async function matchPaymentRequest(
  sql: Queryable,
  requestId: string,
  settings: PresentSettings,
  now: Date = new Date(),
): Promise<boolean | undefined> {
  const [row] = await selectPaymentRequestRows(sql, "WHERE id = $1 FOR UPDATE", [requestId]);
  if (!row) return undefined;
  await sql.query("DELETE FROM payment_request_changes WHERE request_id = $1", [requestId]);
  const deposits = (await sql.query<WalletDeposit>(WALLET_DEPOSITS, [row.wallet_id])).rows;
  const options = await sql.query<{ chain: string; asset: string; amount_due: string }>(
    "SELECT chain, asset, amount_due::text AS amount_due FROM payment_request_options WHERE request_id = $1",
    [requestId],
  );
  const figures = requestFigures({
    amount: BigInt(row.amount),
    expiresAt: row.expires_at,
    canceledAt: row.canceled_at,
    options: options.rows.map((o) => ({ chain: o.chain, asset: o.asset, amountDue: BigInt(o.amount_due) })),
    payments: deposits.map((d) => ({
      chain: d.chain,
      asset: d.asset,
      amountRaw: BigInt(d.amount_raw),
      status: d.status,
      held: d.hold_status !== null,
      seenAt: d.seen_at,
    })),
    now,
  });
  const events: PaymentRequestEventType[] = [];
  const changedPayments = deposits.filter(
    (d, i) => d.counted_status !== d.status || d.counted_flag !== figures.flags[i],
  );
  for (const d of changedPayments) {
    // A payment that counted and left the chain: the request no longer has it.
    if (d.status === "REVERSED" && d.counted_status !== null && d.counted_status !== "REVERSED" && !d.counted_flag) {
      events.push("payment_request.payment_reversed");
    }
  }
  const reports = deposits
    .map((d, i) => ({ d, flag: figures.flags[i] ?? null }))
    .filter(({ d, flag }) => d.status === "CONFIRMED" && (flag === "late" || flag === "not_accepted") && !d.reported);
  for (const { flag } of reports) {
    events.push(flag === "late" ? "payment_request.late_payment" : "payment_request.unaccepted_payment");
  }
  if (changedPayments.length > 0 || reports.length > 0) {
    const reported = new Set(reports.map((r) => r.d.id));
    await sql.query(
      `INSERT INTO payment_request_payments (deposit_id, request_id, deposit_status, seen_at, flag, reported)
       SELECT u.id, $1, u.status, u.seen_at, u.flag, u.reported
         FROM unnest($2::uuid[], $3::text[], $4::timestamptz[], $5::text[], $6::boolean[]) AS u(id, status, seen_at, flag, reported)
       ON CONFLICT (deposit_id) DO UPDATE
         SET deposit_status = EXCLUDED.deposit_status, flag = EXCLUDED.flag,
             reported = payment_request_payments.reported OR EXCLUDED.reported, updated_at = now()`,
      [
        requestId,
        deposits.map((d) => d.id),
        deposits.map((d) => d.status),
        deposits.map((d) => d.seen_at),
        figures.flags,
        deposits.map((d) => reported.has(d.id) || d.reported === true),
      ],
    );
  }
  const moved = !sameFigures(row, figures);
  if (moved) {
    if (figures.status !== row.status) {
      const event = STATUS_EVENTS[figures.status];
      if (event) events.push(event);
    }
    await storeFigures(sql, row, figures, now);
  }
  if (events.length === 0) return moved || changedPayments.length > 0;
  const [reread] = await selectPaymentRequestRows(sql, "WHERE id = $1", [requestId]);
  if (reread)
    await appendRequestEvents(sql, row.merchant_id, events, await presentPaymentRequest(sql, reread, settings, now));
  return true;
}

/**
 * Stores the figures. paid_at is set when the request becomes paid or overpaid and cleared when a
 * reorg takes that back; once a payment is seen the quote holds until the request expires.
 */
async function storeFigures(sql: Queryable, row: PaymentRequestRow, f: Figures, now: Date): Promise<void> {
  const covered = f.status === "paid" || f.status === "overpaid";
  const seen = f.amountPaid > 0n || f.amountPending > 0n;
  await sql.query(
    `UPDATE payment_requests
        SET status = $2, amount_paid = $3, amount_pending = $4, amount_missing = $5, amount_excess = $6,
            paid_at = CASE WHEN $7 THEN coalesce(paid_at, $9) END,
            rate_locked_until = CASE WHEN $8 THEN greatest(rate_locked_until, expires_at) ELSE rate_locked_until END,
            updated_at = now()
      WHERE id = $1`,
    [
      row.id,
      f.status,
      f.amountPaid.toString(),
      f.amountPending.toString(),
      f.amountMissing.toString(),
      f.amountExcess.toString(),
      covered,
      seen,
      now,
    ],
  );
}
