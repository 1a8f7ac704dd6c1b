import assert from "node:assert/strict";
import type { Database } from "@mp/db";
import { checkLedger } from "@mp/ledger";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";

/** A case's liquidation addresses and the deposits made to them, and the merchant's balance when it began. */
export interface DrainCaseState {
  merchantId: string;
  addressIds: string[];
  deposits: { id: string; addressIndex: number; micros: bigint }[];
  /** merchant_available + merchant_reserved (USD micros) when the case began. */
  heldAtStart: bigint;
}

/** The merchant's available plus reserved USD (micros): what of its money has not left it. */
export async function merchantHeld(db: Database, merchantId: string): Promise<{ available: bigint; reserved: bigint }> {
  const { rows } = await db.query<{ kind: string; balance: string }>(
    `SELECT a.kind, coalesce(b.balance, 0)::text AS balance FROM ledger_accounts a
       LEFT JOIN account_balances b ON b.account_id = a.id
      WHERE a.merchant_id = $1 AND a.currency = 'USD' AND a.kind IN ('merchant_available', 'merchant_reserved')`,
    [merchantId],
  );
  const of = (kind: string) => BigInt(rows.find((r) => r.kind === kind)?.balance ?? "0");
  return { available: of("merchant_available"), reserved: of("merchant_reserved") };
}

interface MoneyOfDeposits {
  /** What the confirmed deposits credited (no deposit fee on drains). */
  credited: bigint;
  /** The source of the drains' transfers that completed: paid out, fee included. */
  paidOut: bigint;
  /** What `policy_return` entries took back from available: owed to (or sent to) a return_address. */
  owedBack: bigint;
}

async function moneyOfDeposits(db: Database, depositIds: readonly string[]): Promise<MoneyOfDeposits> {
  const { rows } = await db.query<{ credited: string; paid_out: string; owed_back: string }>(
    `SELECT
       (SELECT coalesce(sum(d.net_amount_usd_micros), 0) FROM deposits d
         WHERE d.id = ANY($1::uuid[]) AND d.credit_entry_id IS NOT NULL AND d.reversal_entry_id IS NULL)::text AS credited,
       (SELECT coalesce(sum(q.source_amount), 0) FROM liquidation_drains ld JOIN transfers t ON t.id = ld.transfer_id
          JOIN transfer_quotes q ON q.id = t.quote_id
         WHERE ld.deposit_id = ANY($1::uuid[]) AND t.status = 'COMPLETED')::text AS paid_out,
       (SELECT coalesce(sum(l.amount), 0) FROM journal_entries p JOIN journal_lines l ON l.entry_id = p.id
          JOIN ledger_accounts a ON a.id = l.account_id
         WHERE p.kind = 'policy_return' AND p.reference = ANY($2::text[]) AND a.kind = 'merchant_available')::text AS owed_back`,
    [depositIds, depositIds],
  );
  const row = rows[0];
  return {
    credited: BigInt(row?.credited ?? "0"),
    paidOut: BigInt(row?.paid_out ?? "0"),
    owedBack: BigInt(row?.owed_back ?? "0"),
  };
}

interface PaidRow {
  deposit_id: string;
  drains: number;
  transfer_sends: number;
  payouts: number;
  return_sends_confirmed: number;
  return_raw: string;
  amount_raw: string;
}

/**
 * After every step of a drain case: `ledger check` clean (the drains' and the returns' checks with
 * it); the merchant's available and reserved never below zero; each deposit drained at most once,
 * its transfer paid by at most one send and at most one bank payout, sent back by at most one
 * confirmed return whose sends ask no more than it brought; and no money lost or made: what the
 * merchant still holds (available + reserved) moved from the case's start by exactly what the
 * deposits credited, less what their drains paid out and what was taken back to be returned.
 */
export async function checkDrainStep(db: Database, state: DrainCaseState): Promise<void> {
  registerLedgerChecks();
  const ledger = await checkLedger(db);
  assert.deepEqual(ledger.problems, [], "ledger check");
  const held = await merchantHeld(db, state.merchantId);
  assert.ok(held.available >= 0n, `merchant available ${held.available} below zero`);
  assert.ok(held.reserved >= 0n, `merchant reserved ${held.reserved} below zero`);
  const ids = state.deposits.map((d) => d.id);
  const money = await moneyOfDeposits(db, ids);
  assert.equal(
    held.available + held.reserved - state.heldAtStart,
    money.credited - money.paidOut - money.owedBack,
    `merchant's money moved other than its deposits, payouts and returns say: ${JSON.stringify(money, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`,
  );
  const { rows } = await db.query<PaidRow>(
    `SELECT d.id AS deposit_id, d.amount_raw::text AS amount_raw,
            (SELECT count(*)::int FROM liquidation_drains ld WHERE ld.deposit_id = d.id) AS drains,
            (SELECT count(*)::int FROM liquidation_drains ld JOIN treasury_sends s
                ON s.idempotency_key = ld.transfer_id::text AND s.purpose = 'transfer' WHERE ld.deposit_id = d.id) AS transfer_sends,
            (SELECT count(*)::int FROM liquidation_drains ld JOIN transfer_payouts p ON p.transfer_id = ld.transfer_id
              WHERE ld.deposit_id = d.id) AS payouts,
            (SELECT count(*)::int FROM treasury_sends s WHERE s.purpose = 'return' AND s.state = 'confirmed'
                AND (s.idempotency_key = 'deposit-return:' || d.id OR s.idempotency_key LIKE 'deposit-return:' || d.id || '#%')) AS return_sends_confirmed,
            (SELECT coalesce(sum(s.amount_raw), 0)::text FROM treasury_sends s WHERE s.purpose = 'return' AND s.state <> 'failed'
                AND (s.idempotency_key = 'deposit-return:' || d.id OR s.idempotency_key LIKE 'deposit-return:' || d.id || '#%')) AS return_raw
       FROM deposits d WHERE d.id = ANY($1::uuid[])`,
    [ids],
  );
  assert.equal(rows.length, ids.length, "a deposit of the case vanished");
  for (const r of rows) {
    assert.ok(r.drains <= 1, `deposit ${r.deposit_id} drained ${r.drains} times`);
    assert.ok(r.transfer_sends <= 1, `deposit ${r.deposit_id}'s drain paid by ${r.transfer_sends} sends`);
    assert.ok(r.payouts <= 1, `deposit ${r.deposit_id}'s drain paid by ${r.payouts} bank payouts`);
    assert.ok(r.return_sends_confirmed <= 1, `deposit ${r.deposit_id} returned ${r.return_sends_confirmed} times`);
    assert.ok(
      BigInt(r.return_raw) <= BigInt(r.amount_raw),
      `deposit ${r.deposit_id} of ${r.amount_raw} sent back ${r.return_raw}`,
    );
  }
}

interface SettledDrain {
  deposit_id: string;
  state: string | null;
  has_return_address: boolean;
  transfer_status: string | null;
  return_state: string | null;
  owed_back: boolean;
}

/**
 * Once settled: every deposit of the case has its drain, none still moving; a paid one's transfer
 * completed; a refunded one's return sent (returned) or payable again; a failed or below-minimum
 * one of an address with a return_address owed back (returned, or payable when not worth its fee);
 * one without a return_address left on the merchant's available balance (no return). With the
 * step checks, each deposit's money is paid out, returned, or still the merchant's: never lost.
 */
export async function checkDrainsSettled(db: Database, state: DrainCaseState): Promise<void> {
  await checkDrainStep(db, state);
  const { rows } = await db.query<SettledDrain>(
    `SELECT d.id AS deposit_id, ld.state, a.return_address IS NOT NULL AS has_return_address, t.status AS transfer_status,
            r.state AS return_state,
            EXISTS (SELECT 1 FROM journal_entries p WHERE p.kind = 'policy_return' AND p.reference = d.id::text) AS owed_back
       FROM deposits d LEFT JOIN liquidation_drains ld ON ld.deposit_id = d.id
       LEFT JOIN liquidation_addresses a ON a.id = ld.liquidation_address_id
       LEFT JOIN transfers t ON t.id = ld.transfer_id LEFT JOIN deposit_returns r ON r.deposit_id = d.id
      WHERE d.id = ANY($1::uuid[])`,
    [state.deposits.map((d) => d.id)],
  );
  for (const r of rows) {
    const what = `deposit ${r.deposit_id}: drain ${r.state}, transfer ${r.transfer_status}, return ${r.return_state}`;
    assert.ok(r.state !== null, `${what}: never drained`);
    assert.ok(!["awaiting_funds", "payment_submitted"].includes(r.state), `${what}: still moving once settled`);
    if (r.state === "payment_processed") assert.equal(r.transfer_status, "COMPLETED", what);
    if (r.state === "refunded") assert.ok(r.return_state === "returned" || r.return_state === "payable", what);
    if (r.state === "failed" || r.state === "not_paid") {
      if (r.has_return_address) {
        assert.ok(r.owed_back, `${what}: not owed back to its return_address`);
        assert.equal(r.return_state, "payable", `${what}: owed back, neither refunded nor payable`);
      } else {
        assert.ok(!r.owed_back && r.return_state === null, `${what}: returned without a return_address`);
      }
    }
    if (r.return_state !== null) assert.notEqual(r.return_state, "sending", `${what}: return never settled`);
  }
}
