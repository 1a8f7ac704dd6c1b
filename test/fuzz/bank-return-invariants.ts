import assert from "node:assert/strict";
import { decimalToUnits } from "@mp/core";
import type { Database } from "@mp/db";
import { checkLedger } from "@mp/ledger";
import { registerLedgerChecks } from "../../services/payments/src/ledger-checks.ts";
import type { FaultyBank } from "./faulty-bank.ts";

/** A case's statement lines and what was seen of their returns, and the merchant's balance when it began. */
export interface BankReturnCaseState {
  merchantId: string;
  /** Each line, its payer's account and how a return to it ends (paid, refused by its bank, payable). */
  lines: {
    id: string;
    origin: "suspense" | "late";
    account: string;
    ends: "returned" | "failed" | "payable";
    amount: string;
  }[];
  /** Each return's state at the last check (states only move forward). */
  seen: Map<string, string>;
  /** merchant_available (USD micros) when the case began. */
  availableAtStart: bigint;
}

/** The states a bank return may move to from each (failed and payable wait for an operator). */
const NEXT: Record<string, readonly string[]> = {
  payable: ["payable"],
  sending: ["sending", "payable", "returned", "failed"],
  returned: ["returned"],
  failed: ["failed"],
};

interface ReturnRow {
  line_id: string;
  id: string | null;
  origin: string | null;
  state: string | null;
  owed: string | null;
  taken: boolean;
  line_bank_deposit: string | null;
  deposit_amount: string | null;
  out_of_suspense: boolean;
}

async function returnsOf(db: Database, state: BankReturnCaseState): Promise<ReturnRow[]> {
  const { rows } = await db.query<ReturnRow>(
    `SELECT l.id AS line_id, r.id, r.origin, r.state, r.owed_usd_micros::text AS owed, r.taken_entry_id IS NOT NULL AS taken,
            l.bank_deposit_id AS line_bank_deposit, b.amount_usd_micros::text AS deposit_amount,
            EXISTS (SELECT 1 FROM journal_entries o WHERE o.kind = 'bank_suspense_out' AND o.reference = l.id::text) AS out_of_suspense
       FROM bank_statement_lines l LEFT JOIN bank_returns r ON r.statement_line_id = l.id
       LEFT JOIN bank_deposits b ON b.id = l.bank_deposit_id
      WHERE l.id = ANY($1::uuid[])`,
    [state.lines.map((l) => l.id)],
  );
  return rows;
}

/** The bank's payouts of a return (keyed by its id), and those it pays (accepted, not refused). */
async function bankPayoutsOf(bank: FaultyBank, returnId: string) {
  const all = [...bank.payouts.values()].filter((p) => p.payoutId.split("#")[0] === returnId);
  const statuses = await Promise.all(all.map((p) => bank.statusOf(p.payoutId)));
  return {
    all,
    paying: all.filter((_p, i) => statuses[i] !== "FAILED"),
    completed: all.filter((_p, i) => statuses[i] === "COMPLETED"),
  };
}

/**
 * After every step of a bank-returns case: `ledger check` clean (with the transfers' and the bank
 * returns' checks: returns_payable counts the policy returns not paid, every entry is a return's);
 * each return's state moved only forward; the bank (its own record) was asked under a return's key
 * for its amount and its payer's account only, and pays each return at most once; a `returned`
 * return was paid by the bank, a `failed` one's payouts all failed and a `payable` one is paid by
 * none; a suspense line leaves suspense exactly when its return is paid; and the merchant's
 * available balance moved by exactly its late credits less what the policy took back.
 */
export async function checkBankReturnStep(db: Database, bank: FaultyBank, state: BankReturnCaseState): Promise<void> {
  registerLedgerChecks();
  const ledger = await checkLedger(db);
  assert.deepEqual(ledger.problems, [], "ledger check");
  let credited = 0n;
  let taken = 0n;
  for (const row of await returnsOf(db, state)) {
    const line = state.lines.find((l) => l.id === row.line_id);
    assert.ok(line, `line ${row.line_id} is not the case's`);
    if (line.origin === "late") credited += BigInt(row.deposit_amount ?? "0");
    if (row.taken) taken += BigInt(row.owed ?? "0");
    if (!row.id || !row.state) {
      assert.ok(line.origin === "late", `suspense line ${row.line_id} returned without a bank return`);
      assert.ok(!row.out_of_suspense || line.origin === "late", `line ${row.line_id} left suspense unreturned`);
      continue;
    }
    const what = `bank return ${row.id} (${row.origin}, ${row.state}, to ${line.account || "no account"})`;
    const before = state.seen.get(row.id);
    if (before) assert.ok(NEXT[before]?.includes(row.state), `${what}: moved from ${before}`);
    state.seen.set(row.id, row.state);
    assert.equal(BigInt(row.owed ?? "0"), decimalToUnits(line.amount, 6), `${what}: owes another amount`);

    const payouts = await bankPayoutsOf(bank, row.id);
    for (const p of payouts.all) {
      assert.equal(p.mismatches, 0, `${what}: the bank was asked under one key for two payouts`);
      assert.equal(p.amount, line.amount, `${what}: the bank was asked to pay ${p.amount}`);
      assert.equal(p.account, line.account, `${what}: the bank was asked to pay another account`);
    }
    assert.ok(payouts.paying.length <= 1, `${what}: the bank pays it ${payouts.paying.length} times`);
    if (row.state === "returned") assert.equal(payouts.completed.length, 1, `${what}: not paid by the bank`);
    if (row.state === "failed") assert.equal(payouts.paying.length, 0, `${what}: failed, yet the bank pays it`);
    if (row.state === "payable") assert.equal(payouts.all.length, 0, `${what}: payable, yet the bank has it`);
    if (row.origin === "suspense") {
      assert.equal(row.out_of_suspense, row.state === "returned", `${what}: out of suspense ${row.out_of_suspense}`);
    }
  }
  const now = await availableOf(db, state.merchantId);
  assert.equal(
    now - state.availableAtStart,
    credited - taken,
    `merchant available moved ${now - state.availableAtStart}, its late credits less what was taken back ${credited - taken}`,
  );
}

async function availableOf(db: Database, merchantId: string): Promise<bigint> {
  const { rows } = await db.query<{ balance: string }>(
    `SELECT coalesce(b.balance, 0)::text AS balance FROM ledger_accounts a LEFT JOIN account_balances b ON b.account_id = a.id
      WHERE a.merchant_id = $1 AND a.currency = 'USD' AND a.kind = 'merchant_available'`,
    [merchantId],
  );
  return BigInt(rows[0]?.balance ?? "0");
}

/**
 * Once settled (the bank perfect, its clock past every payout, passes until nothing sends): every
 * line of the case has its bank return (a late credit's taken back), ended as its payer's account
 * says (paid, refused by the payer's bank, or payable with no account to pay), and the bank paid
 * exactly the returned ones, once each.
 */
export async function checkBankReturnsSettled(
  db: Database,
  bank: FaultyBank,
  state: BankReturnCaseState,
): Promise<void> {
  await checkBankReturnStep(db, bank, state);
  for (const row of await returnsOf(db, state)) {
    const line = state.lines.find((l) => l.id === row.line_id);
    assert.ok(line && row.id, `line ${row.line_id} (${line?.origin}) has no bank return once settled`);
    assert.equal(row.state, line.ends, `bank return ${row.id} to ${line.account || "no account"} ended ${row.state}`);
    const payouts = await bankPayoutsOf(bank, row.id);
    assert.equal(payouts.completed.length, row.state === "returned" ? 1 : 0, `bank return ${row.id}: bank payments`);
  }
}
