import { randomUUID } from "node:crypto";
import { AppError, decimalToUnits, NotFoundError } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import type { EncryptionKeyring } from "@mp/encryption";
import { buildPain001, pain001ControlSum, payoutEndToEndId, type StatementLine } from "@mp/providers";
import { bankPayoutRequest } from "./bank-payout-execution.ts";
import { bankReturnPayout } from "./bank-returns/bank-return-payout.ts";

/**
 * The statement bank's payouts (BANKING_PROVIDER=statement, migrations/0127): finance exports the
 * queued ones as a pain.001 file (`payments bank payouts export`), uploads it to the bank, and the
 * statements imported afterwards (`payments bank import`) confirm or return them. What the executor
 * then reads through the provider's getPayoutStatus moves the transfers.
 */

/** Payouts per file: a large backlog goes out in several files rather than one the bank may refuse. */
const BATCH_LIMIT = 1000;

export interface PayoutDebtor {
  name: string;
  accountNumber: string;
  routingNumber: string;
  bic?: string | undefined;
}

export interface PayoutExport {
  batchId: string;
  messageId: string;
  payouts: number;
  controlSum: string;
  /** The pain.001 XML. */
  document: string;
  /** true when the batch was exported before and this is the same file again. */
  reexport: boolean;
}

/**
 * Writes every queued payout (up to BATCH_LIMIT, oldest first) into one new pain.001 batch, each
 * exported exactly once (the rows are locked and marked in the batch's transaction: two exports
 * running together never put one payout in both). With `batchId`, the earlier batch's very file
 * again. Undefined when nothing is queued.
 */
export async function exportStatementPayouts(
  db: Database,
  keyring: EncryptionKeyring,
  input: { debtor: PayoutDebtor; operator: string; batchId?: string | undefined },
): Promise<PayoutExport | undefined> {
  if (input.batchId) {
    const earlier = await db.query<PayoutExport>(
      `SELECT id AS "batchId", message_id AS "messageId", payouts, control_sum::text AS "controlSum", document,
              true AS reexport
         FROM statement_payout_batches WHERE id = $1`,
      [input.batchId],
    );
    const batch = earlier.rows[0];
    if (!batch) throw new NotFoundError("Payout batch");
    return batch;
  }
  return db.tx(async (sql) => {
    const queued = await sql.query<{ payout_id: string }>(
      `SELECT payout_id FROM statement_bank_payouts WHERE status = 'QUEUED'
        ORDER BY created_at, payout_id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [BATCH_LIMIT],
    );
    if (queued.rows.length === 0) return undefined;
    const payments = [];
    for (const { payout_id } of queued.rows) {
      // A bank return's payout (bank-returns/) pays the payer its statement line names; a transfer's its quote's account.
      const returned = await bankReturnPayout(sql, keyring, payout_id);
      if (returned && "refused" in returned)
        throw new AppError("internal_error", `bank return ${payout_id}: ${returned.refused}`);
      const request = returned ? returned.request : await bankPayoutRequest(sql, keyring, payout_id);
      payments.push({
        endToEndId: payoutEndToEndId(payout_id),
        amount: request.amount,
        currency: request.currency,
        creditor: request.creditor,
        remittance: request.remittance,
      });
    }
    const id = randomUUID();
    const now = await sql.query<{ now: Date; today: string }>(
      "SELECT now() AS now, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS today",
    );
    const createdAt = now.rows[0]?.now ?? new Date();
    const messageId = `MP${id.replaceAll("-", "").toUpperCase()}`;
    const batch: PayoutExport = {
      batchId: id,
      messageId,
      payouts: payments.length,
      controlSum: pain001ControlSum(payments),
      document: buildPain001({
        messageId,
        createdAt,
        executionDate: now.rows[0]?.today ?? createdAt.toISOString().slice(0, 10),
        debtor: input.debtor,
        payments,
      }),
      reexport: false,
    };
    await sql.query(
      `INSERT INTO statement_payout_batches (id, message_id, payouts, control_sum, document, exported_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, messageId, batch.payouts, batch.controlSum, batch.document, input.operator, createdAt],
    );
    await sql.query(
      `UPDATE statement_bank_payouts SET status = 'EXPORTED', batch_id = $2, updated_at = now()
        WHERE payout_id = ANY($1::uuid[])`,
      [queued.rows.map((r) => r.payout_id), id],
    );
    return batch;
  });
}

/** What a statement line does to one of our payouts: confirm it, return it, or ask finance to look. */
export type PayoutLineMatch =
  | { payoutId: string; outcome: "COMPLETED" | "RETURNED" | "FAILED"; reason?: undefined }
  | { payoutId: string; reason: string; outcome?: undefined };

/** An end-to-end id of ours in a line's reference (a return quotes it inside its own text). */
const END_TO_END = /[0-9A-F]{32}/g;

/**
 * The payout a statement line names by its end-to-end id (in the line's EndToEndId or its reference),
 * and what the line means for it: a debit of the payout's amount confirms an exported payout
 * (COMPLETED); a credit of it (a reversal of the debit too) returns a completed one (RETURNED), or
 * one never confirmed (FAILED: the money came back before any debit was seen). Any
 * other line naming a payout (another amount, a second debit) is left for finance, with the reason.
 * Undefined when the line names no payout of ours. Locks the payout's row (the import's transaction).
 */
export async function matchPayoutLine(sql: Queryable, line: StatementLine): Promise<PayoutLineMatch | undefined> {
  // A reversed debit (camt CRDT with RvslInd): the bank booked the payout's return as the reversal
  // of its debit, as many do. A reversed credit is never ours to follow.
  if (line.reversal && line.direction === "DEBIT") return undefined;
  const quoted = [line.endToEndId, line.reference].filter((r) => typeof r === "string" && r.length > 0).join(" ");
  const ids = quoted.toUpperCase().match(END_TO_END);
  if (!ids) return undefined;
  const found = await sql.query<{ payout_id: string; amount: string; currency: string; status: string }>(
    `SELECT payout_id, amount::text AS amount, currency, status FROM statement_bank_payouts
      WHERE end_to_end_id = ANY($1::text[]) ORDER BY created_at LIMIT 1 FOR UPDATE`,
    [ids],
  );
  const payout = found.rows[0];
  if (!payout) return undefined;
  const name = `payout ${payout.payout_id}`;
  if (line.currency !== payout.currency || decimalToUnits(line.amount, 5) !== decimalToUnits(payout.amount, 5)) {
    return {
      payoutId: payout.payout_id,
      reason: `names ${name} of ${payout.amount} ${payout.currency} but moves ${line.amount} ${line.currency}: resolve by hand`,
    };
  }
  if (line.direction === "DEBIT") {
    if (payout.status === "EXPORTED") return { payoutId: payout.payout_id, outcome: "COMPLETED" };
    return { payoutId: payout.payout_id, reason: `a debit for ${name}, which is ${payout.status}: resolve by hand` };
  }
  if (payout.status === "COMPLETED") return { payoutId: payout.payout_id, outcome: "RETURNED" };
  if (payout.status === "EXPORTED") return { payoutId: payout.payout_id, outcome: "FAILED" };
  return {
    payoutId: payout.payout_id,
    reason: `a credit returning ${name}, which is ${payout.status}: resolve by hand`,
  };
}

/** Records the line's outcome on the payout (after the line itself is recorded). */
export async function applyPayoutLine(
  sql: Queryable,
  lineId: string,
  match: { payoutId: string; outcome: "COMPLETED" | "RETURNED" | "FAILED" },
): Promise<void> {
  const column = match.outcome === "COMPLETED" ? "completed_line_id" : "returned_line_id";
  await sql.query(
    `UPDATE statement_bank_payouts SET status = $2, ${column} = $3, updated_at = now() WHERE payout_id = $1`,
    [match.payoutId, match.outcome, lineId],
  );
  // A completed payout is asked about hourly (a return can come for 60 days): the line that ends it
  // is followed at the executor's next pass instead (a transfer's payout, keyed by its transfer id).
  await sql.query("UPDATE transfer_payouts SET next_check_at = now() WHERE transfer_id = $1 AND status = 'COMPLETED'", [
    match.payoutId,
  ]);
  // A bank return's payout is keyed by its payout key: one paid is asked about at the next pass too.
  await sql.query("UPDATE bank_returns SET next_check_at = now() WHERE payout_key = $1 AND state = 'returned'", [
    match.payoutId,
  ]);
}
