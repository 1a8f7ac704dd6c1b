import { randomUUID } from "node:crypto";
import { assignStatementLine, importBankStatement, listUnmatchedStatementLines } from "@mp/api";
import { createSandboxBankingProvider } from "@mp/providers";
import { bankReturnById, executeBankReturnsOnce } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { recordBankReturnAnswer } from "../../packages/transfers/src/bank-returns/bank-return-pass.ts";
import { eventually } from "../support/api-harness.ts";
import { useTransfersApi } from "./transfers-support.ts";

const CSV_HEADER =
  "booking_date,account_number,direction,amount,currency,bank_reference,reference,counterparty,counterparty_account,counterparty_routing_number";

/**
 * Found by the bank returns' fault search (seed 472648280: two worker passes at once): one pass took
 * a late bank credit back from a stale list (the return already existed: its insert conflicts, under
 * the bank deposit's lock) while the other recorded that return's answer, locking the return and
 * then the bank deposit (for the merchant's event): a deadlock. The answer now locks the deposit
 * first, as the take-back does; replayed here step by step, in that interleaving.
 */
const onServer = Boolean(process.env.DATABASE_URL);

describe.skipIf(!onServer)(
  "bank returns: a take-back and an answer of the same bank deposit at once (PostgreSQL only: it waits on a lock another connection holds; the embedded database has one connection)",
  () => {
    const { t, a, customer } = useTransfersApi();

    it("the answer waits for the take-back's deposit lock, then records; no deadlock", async () => {
      await t.api.db.query("UPDATE merchants SET return_policy = 'return' WHERE id = $1", [a.merchantId]);
      const quote = await t.quote(a, customer.customerId);
      const transferId = (await t.transfer(a, quote.id)).body.data.id as string;
      const intentId = (await t.call(a, `/v1/transfers/${transferId}/funding`)).body.data.intent.id as string;
      const lineIds: string[] = [];
      for (const [i, amount] of ["100.00", "30.00"].entries()) {
        const reference = `BNK-LOCK-${i}-${Date.now()}`;
        await importBankStatement(t.api.db, {
          fileName: `${reference}.csv`,
          content: `${CSV_HEADER}\n2026-11-28,999999999999,CREDIT,${amount},USD,${reference},,Pat Payer,555566667777,021000021\n`,
          operator: "finance",
          keyring: t.api.deps.encryption,
        });
        const line = (await listUnmatchedStatementLines(t.api.db)).find((l) => l.bankReference === reference);
        if (!line) throw new Error("the line is not unmatched");
        await assignStatementLine(t.api.db, { lineId: line.id, intentId, operator: "finance" });
        lineIds.push(line.id);
      }
      // The late 30.00 taken back and asked of a bank that answers PENDING: its return is sending.
      const slowBank = createSandboxBankingProvider({ payoutDelayMs: 3_600_000 });
      await executeBankReturnsOnce(t.api.db, { banking: slowBank, keyring: t.api.deps.encryption }, 50);
      const { rows } = await t.api.db.query<{ id: string; bank_deposit_id: string; provider_payout_id: string }>(
        "SELECT id, bank_deposit_id, provider_payout_id FROM bank_returns WHERE statement_line_id = $1",
        [lineIds[1]],
      );
      const open = rows[0];
      if (!open) throw new Error("the late credit was not taken back");
      expect(await bankReturnById(t.api.db, open.id)).toMatchObject({ state: "sending" });

      // A stale take-back: under the bank deposit's lock (as takeBackBankCredits holds it)...
      const takeBack = await t.api.db.pool.connect();
      try {
        await takeBack.query("BEGIN");
        await takeBack.query("SELECT 1 FROM bank_deposits WHERE id = $1 FOR UPDATE", [open.bank_deposit_id]);
        // ...while the other worker records the bank's answer (COMPLETED),
        const answer = t.api.db.tx((sql) =>
          recordBankReturnAnswer(
            sql,
            { id: open.id, payoutKey: open.id },
            { providerPayoutId: open.provider_payout_id, status: { status: "COMPLETED" } },
          ),
        );
        // which now waits for the deposit (before touching the return)...
        await eventually(async () => {
          const waiting = await t.api.db.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          return (waiting.rows[0]?.n ?? 0) > 0 ? true : undefined;
        }, 20_000);
        // ...then the take-back's insert of the same deposit's return conflicts and does nothing, at once.
        const inserted = await takeBack.query(
          `INSERT INTO bank_returns (id, payout_key, origin, statement_line_id, bank_deposit_id, merchant_id, transfer_id,
           owed_usd_micros, state, reason)
         VALUES ($1, $1, 'late_funding', $2, $3, $4, $5, 30000000, 'payable', 'stale') ON CONFLICT DO NOTHING`,
          [randomUUID(), lineIds[1], open.bank_deposit_id, a.merchantId, transferId],
        );
        expect(inserted.rowCount).toBe(0);
        await takeBack.query("COMMIT");
        expect(await answer).toBe(true);
      } finally {
        takeBack.release();
      }
      expect(await bankReturnById(t.api.db, open.id)).toMatchObject({ state: "returned" });
      const events = await t.api.db.query(
        "SELECT 1 FROM events WHERE type = 'bank_deposit.return_sent' AND object_id = $1",
        [open.bank_deposit_id],
      );
      expect(events.rowCount).toBe(1);
      await t.expectLedgerClean();
    });
  },
);
