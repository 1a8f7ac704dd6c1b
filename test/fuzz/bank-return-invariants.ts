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
  /** Every payout key each return had at a check (a key changes only by an operator's step). */
  keys: Map<string, Set<string>>;
  /** The accounts an operator gave each return. */
  accounts: Map<string, string[]>;
  /** Returns an operator sent or closed: they end as the operator had them, not as their line says. */
  acted: Set<string>;
  /** Paid returns whose payer's bank sent the payment back (the `bounce` step): they end failed or as an operator had them. */
  bounced: Set<string>;
  /** The payout keys sent back while their return was `returned` (paid in our books): each followed once. */
  sentBackPaid: Set<string>;
  /** merchant_available (USD micros) when the case began. */
  availableAtStart: bigint;
}

/** The states a bank return may move to from each (failed and payable wait for an operator). */
const NEXT: Record<string, readonly string[]> = {
  payable: ["payable", "sending", "closed"],
  sending: ["sending", "payable", "returned", "failed"],
  // Paid, then sent back by the payer's bank: failed, still owed (and, within one `slow` step, sent
  // again by the operator while the slow pass waited).
  returned: ["returned", "failed", "sending"],
  failed: ["failed", "sending", "closed"],
  closed: ["closed"],
};

interface ReturnRow {
  line_id: string;
  id: string | null;
  origin: string | null;
  state: string | null;
  payout_key: string | null;
  line_status: string;
  owed: string | null;
  taken: boolean;
  line_bank_deposit: string | null;
  deposit_amount: string | null;
  out_of_suspense: boolean;
}

async function returnsOf(db: Database, state: BankReturnCaseState): Promise<ReturnRow[]> {
  const { rows } = await db.query<ReturnRow>(
    `SELECT l.id AS line_id, r.id, r.origin, r.state, r.payout_key, l.status AS line_status,
            r.owed_usd_micros::text AS owed, r.taken_entry_id IS NOT NULL AS taken,
            l.bank_deposit_id AS line_bank_deposit, b.amount_usd_micros::text AS deposit_amount,
            NOT EXISTS (SELECT 1 FROM journal_entries i
                         WHERE i.kind = 'bank_suspense_in' AND (i.reference = l.id::text OR starts_with(i.reference, l.id || ':'))
                           AND NOT EXISTS (SELECT 1 FROM journal_entries o
                                            WHERE o.kind = 'bank_suspense_out' AND o.reference = i.reference)) AS out_of_suspense
       FROM bank_statement_lines l LEFT JOIN bank_returns r ON r.statement_line_id = l.id
       LEFT JOIN bank_deposits b ON b.id = l.bank_deposit_id
      WHERE l.id = ANY($1::uuid[]) ORDER BY l.id, r.created_at`,
    [state.lines.map((l) => l.id)],
  );
  return rows;
}

/** The bank's payouts of a return (under any key it had), and those it pays (accepted, not refused). */
async function bankPayoutsOf(bank: FaultyBank, state: BankReturnCaseState, returnId: string) {
  const keys = state.keys.get(returnId) ?? new Set();
  const all = [...bank.payouts.values()].filter((p) => keys.has(p.payoutId));
  const statuses = await Promise.all(all.map((p) => bank.statusOf(p.payoutId)));
  return {
    all,
    // A payment the payer's bank sent back is no longer one: the return is owed again.
    paying: all.filter((_p, i) => statuses[i] !== "FAILED" && statuses[i] !== "RETURNED"),
    completed: all.filter((_p, i) => statuses[i] === "COMPLETED"),
    sentBack: all.filter((p) => bank.sentBack.has(p.payoutId)),
  };
}

/**
 * After every step of a bank-returns case: `ledger check` clean (with the transfers' and the bank
 * returns' checks: returns_payable counts the policy returns not paid, every entry is a return's);
 * each return's state moved only forward; the bank (its own record) was asked under a return's key
 * for its amount and its payer's account (or one an operator gave) only, under any of the keys the
 * return had, and pays each return at most once; a `returned` return was paid by the bank, a
 * `failed`, `payable` or `closed` one by none (a payment the payer's bank sent back is none); a
 * payout sent back is followed at most once, and a return is not left `returned` under it once
 * followed; a suspense line leaves suspense exactly when a return of it is paid (and is in it again
 * when that payment came back) and is unmatched again when every return of it was closed; and the merchant's
 * available balance moved by exactly its late credits less what the policy took back, plus what
 * closed returns gave back.
 */
export async function checkBankReturnStep(db: Database, bank: FaultyBank, state: BankReturnCaseState): Promise<void> {
  registerLedgerChecks();
  const ledger = await checkLedger(db);
  assert.deepEqual(ledger.problems, [], "ledger check");
  let credited = 0n;
  let taken = 0n;
  let givenBack = 0n;
  const rows = await returnsOf(db, state);
  const lineSeen = new Set<string>();
  for (const row of rows) {
    const line = state.lines.find((l) => l.id === row.line_id);
    assert.ok(line, `line ${row.line_id} is not the case's`);
    if (line.origin === "late" && !lineSeen.has(line.id)) credited += BigInt(row.deposit_amount ?? "0");
    lineSeen.add(line.id);
    if (row.taken) taken += BigInt(row.owed ?? "0");
    if (row.taken && row.state === "closed") givenBack += BigInt(row.owed ?? "0");
    const ofLine = rows.filter((r) => r.line_id === line.id);
    if (line.origin === "suspense") {
      // The line leaves suspense exactly when one of its returns is paid; it is unmatched while every return is closed.
      const paid = ofLine.some((r) => r.state === "returned");
      assert.equal(row.out_of_suspense, paid, `suspense line ${line.id}: out of suspense ${row.out_of_suspense}`);
      const open = ofLine.some((r) => r.id && r.state !== "closed");
      assert.equal(row.line_status, open ? "RETURNED" : "UNMATCHED", `suspense line ${line.id}`);
    }
    if (!row.id || !row.state || !row.payout_key) {
      assert.ok(line.origin === "late", `suspense line ${row.line_id} returned without a bank return`);
      continue;
    }
    const what = `bank return ${row.id} (${row.origin}, ${row.state}, to ${line.account || "no account"})`;
    const before = state.seen.get(row.id);
    if (before) assert.ok(NEXT[before]?.includes(row.state), `${what}: moved from ${before}`);
    state.seen.set(row.id, row.state);
    state.keys.set(row.id, (state.keys.get(row.id) ?? new Set()).add(row.payout_key));
    assert.equal(BigInt(row.owed ?? "0"), decimalToUnits(line.amount, 6), `${what}: owes another amount`);

    const accounts = [line.account, ...(state.accounts.get(row.id) ?? [])];
    const payouts = await bankPayoutsOf(bank, state, row.id);
    for (const p of payouts.all) {
      assert.equal(p.mismatches, 0, `${what}: the bank was asked under one key for two payouts`);
      assert.equal(p.amount, line.amount, `${what}: the bank was asked to pay ${p.amount}`);
      assert.ok(accounts.includes(p.account), `${what}: the bank was asked to pay another account`);
    }
    assert.ok(payouts.paying.length <= 1, `${what}: the bank pays it ${payouts.paying.length} times`);
    // Paid by the bank (or paid, and its payer's bank has just sent it back: followed at a later pass).
    if (row.state === "returned") {
      const paid = payouts.completed.length + (bank.sentBack.has(row.payout_key) ? 1 : 0);
      assert.equal(paid, 1, `${what}: not paid by the bank`);
    }
    // What a return's state says of the bank is what the bank says of the payout under its current key.
    // (A paid one whose payer's bank sent it back is followed at a later pass: returned until then.)
    const current = await bank.statusOf(row.payout_key);
    if (row.state === "returned") {
      assert.ok(current === "COMPLETED" || current === "RETURNED", `${what}: its current payout is ${current}`);
    }
    if (row.state === "failed") {
      assert.ok(current === "FAILED" || current === "RETURNED", `${what}: its current payout is ${current}`);
    }
    // Each payout the payer's bank sent back is followed once: at most one bounce, only of those.
    const bounces = await bouncesOf(db, row.id);
    for (const b of bounces) {
      assert.ok(
        state.sentBackPaid.has(b.payout_key),
        `${what}: payout ${b.payout_key} followed as sent back after it was paid, it was not`,
      );
      assert.ok(
        !(b.payout_key === row.payout_key && row.state === "returned"),
        `${what}: followed as sent back, still returned`,
      );
    }
    assert.ok(
      bounces.length <= payouts.sentBack.length,
      `${what}: ${bounces.length} bounces of ${payouts.sentBack.length}`,
    );
    if (["failed", "payable", "closed"].includes(row.state)) {
      assert.equal(payouts.paying.length, 0, `${what}, yet the bank pays it`);
    }
  }
  const now = await availableOf(db, state.merchantId);
  assert.equal(
    now - state.availableAtStart,
    credited - taken + givenBack,
    `merchant available moved ${now - state.availableAtStart}: late credits ${credited}, taken back ${taken}, given back ${givenBack}`,
  );
}

/** The payouts of return `id` the payer's bank sent back and the service followed (bank_return_bounces). */
async function bouncesOf(db: Database, id: string): Promise<{ payout_key: string }[]> {
  const { rows } = await db.query<{ payout_key: string }>(
    "SELECT payout_key FROM bank_return_bounces WHERE return_id = $1",
    [id],
  );
  return rows;
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
 * line of the case has its bank return (a late credit's taken back), none sending; one no operator
 * touched ended as its payer's account says (paid, refused by the payer's bank, or payable with no
 * account to pay), or failed when its payment was sent back; every payout sent back was followed
 * exactly once; and the bank paid exactly the returned ones, once each.
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
    const what = `bank return ${row.id} to ${line.account || "no account"}`;
    assert.notEqual(row.state, "sending", `${what}: still sending once settled`);
    if (!state.acted.has(row.id) && row.state !== "closed")
      assert.equal(row.state, state.bounced.has(row.id) ? "failed" : line.ends, `${what} ended ${row.state}`);
    const payouts = await bankPayoutsOf(bank, state, row.id);
    assert.equal(payouts.completed.length, row.state === "returned" ? 1 : 0, `${what} (${row.state}): bank payments`);
    // Every payout the payer's bank sent back after we recorded it paid was followed, exactly once
    // (one sent back before a pass saw it paid was never paid in our books: the return failed).
    const followed = (await bouncesOf(db, row.id)).map((b) => b.payout_key).sort();
    const paidThenSentBack = payouts.sentBack.map((p) => p.payoutId).filter((k) => state.sentBackPaid.has(k));
    assert.deepEqual(followed, paidThenSentBack.sort(), `${what}: sent-back payouts followed`);
  }
  await checkPolicyReturnWords(db, state);
}

/**
 * What the merchant reads of a policy return: the intent's flag that names its bank deposit (the
 * latest late credit's flag; an earlier one's words were overwritten by the next credit) says it was
 * sent back by bank, or, once the return was closed, that the money is the merchant's again.
 */
async function checkPolicyReturnWords(db: Database, state: BankReturnCaseState): Promise<void> {
  const { rows } = await db.query<{ id: string; state: string; bank_deposit_id: string; flag: string | null }>(
    `SELECT r.id, r.state, r.bank_deposit_id, i.flag_message AS flag FROM bank_returns r
       JOIN funding_intents i ON i.transfer_id = r.transfer_id
       JOIN bank_statement_lines l ON l.bank_deposit_id = r.bank_deposit_id
      WHERE r.origin <> 'suspense' AND l.id = ANY($1::uuid[])`,
    [state.lines.map((l) => l.id)],
  );
  for (const row of rows) {
    const flag = row.flag ?? "";
    if (!flag.includes(`bank deposit ${row.bank_deposit_id}`)) continue;
    const closed = flag.includes(`its return by bank was closed (bank deposit ${row.bank_deposit_id}:`);
    const sentBack = flag.includes(
      `sent back to its payer by bank by the merchant's return policy (bank deposit ${row.bank_deposit_id})`,
    );
    assert.equal(
      closed,
      row.state === "closed",
      `bank return ${row.id} (${row.state}): its intent's flag says "${flag}"`,
    );
    assert.equal(
      sentBack,
      row.state !== "closed",
      `bank return ${row.id} (${row.state}): its intent's flag says "${flag}"`,
    );
  }
}
