import { randomUUID } from "node:crypto";
import { AppError, ConflictError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { type AccountKind, LEDGER_CURRENCY, lockBalances, merchantAccounts, type Side } from "./accounts.ts";

export type EntryKind =
  | "deposit_credit"
  | "deposit_reversal"
  | "bank_deposit"
  | "hold"
  | "hold_settle"
  | "hold_release"
  | "held_release"
  | "held_return"
  | "float_receipt"
  | "float_reversal"
  | "transfer_fee"
  | "transfer_refund"
  | "funding_fee_refund"
  | "bank_suspense_in"
  | "bank_suspense_out"
  | "deposit_return"
  | "policy_return"
  | "bank_policy_return"
  | "bank_return_paid"
  | "bank_return_closed"
  | "bank_return_bounced";

export interface LineSpec {
  account: AccountKind;
  side: Side;
  amount: bigint;
}

/** The two lines of `amount` moved from one account to another: a debit of `from`, a credit of `to`. */
export function transferLines(from: AccountKind, to: AccountKind, amount: bigint): LineSpec[] {
  return [
    { account: from, side: "debit", amount },
    { account: to, side: "credit", amount },
  ];
}

/** One movement of money for one merchant; (kind, reference) identifies it for idempotency. */
export interface EntrySpec {
  kind: EntryKind;
  reference: string;
  merchantId: string;
  lines: readonly LineSpec[];
}

export interface PostedEntry {
  entryId: string;
  /** false when the entry already existed and nothing was posted. */
  created: boolean;
}

export interface StoredEntry {
  id: string;
  merchantId: string | null;
  lines: LineSpec[];
}

export function oppositeSide(side: Side): Side {
  return side === "debit" ? "credit" : "debit";
}

/** The first check of a balanced entry, before any write; the database checks again at commit. */
function assertBalanced(spec: EntrySpec): void {
  let debits = 0n;
  let credits = 0n;
  for (const line of spec.lines) {
    if (line.amount < 0n) throw new AppError("internal_error", `${spec.kind} line with a negative amount`);
    if (line.side === "debit") debits += line.amount;
    else credits += line.amount;
  }
  if (spec.lines.length < 2 || debits !== credits) {
    throw new AppError("internal_error", `${spec.kind} ${spec.reference} does not balance`);
  }
}

/** The entries of `kind` already posted for `references`, by reference, with their lines in line order. */
export async function findEntries(
  client: Queryable,
  kind: EntryKind,
  references: readonly string[],
): Promise<Map<string, StoredEntry>> {
  const result = await client.query<{
    id: string;
    reference: string;
    merchant_id: string | null;
    account: AccountKind | null;
    side: Side | null;
    amount: string | null;
  }>(
    `SELECT e.id, e.reference, e.merchant_id, a.kind AS account, l.side, l.amount::text AS amount
       FROM journal_entries e
       LEFT JOIN journal_lines l ON l.entry_id = e.id
       LEFT JOIN ledger_accounts a ON a.id = l.account_id
      WHERE e.kind = $1 AND e.reference = ANY($2::text[])
      ORDER BY e.reference, l.line_no`,
    [kind, references],
  );
  const stored = new Map<string, StoredEntry>();
  for (const row of result.rows) {
    let entry = stored.get(row.reference);
    if (!entry) {
      entry = { id: row.id, merchantId: row.merchant_id, lines: [] };
      stored.set(row.reference, entry);
    }
    if (row.account !== null && row.side !== null && row.amount !== null) {
      entry.lines.push({ account: row.account, side: row.side, amount: BigInt(row.amount) });
    }
  }
  return stored;
}

export async function findEntry(client: Queryable, kind: EntryKind, reference: string): Promise<StoredEntry | null> {
  return (await findEntries(client, kind, [reference])).get(reference) ?? null;
}

/** True when two entries' lines are the same accounts, sides and amounts in the same order. */
export function sameLines(stored: readonly LineSpec[], wanted: readonly LineSpec[]): boolean {
  return (
    stored.length === wanted.length &&
    stored.every((line, i) => {
      const other = wanted[i];
      return (
        other !== undefined &&
        line.account === other.account &&
        line.side === other.side &&
        line.amount === other.amount
      );
    })
  );
}

function sameMovement(stored: StoredEntry, spec: EntrySpec): boolean {
  return stored.merchantId === spec.merchantId && sameLines(stored.lines, spec.lines);
}

/** A repeat of an entry answers the first one; the same reference with other figures is a conflict. */
function repeatOf(stored: StoredEntry, spec: EntrySpec): PostedEntry {
  if (!sameMovement(stored, spec)) {
    throw new ConflictError(`${spec.kind} ${spec.reference} was already posted with different figures`);
  }
  return { entryId: stored.id, created: false };
}

/**
 * Posts a balanced entry in the caller's transaction, once per (kind, reference).
 *
 * Order matters: the balance rows are locked before anything is decided, the repeat check runs again
 * under the lock (a concurrent duplicate has committed by then), and `guard` (a funds check) runs
 * before the first write, so a refusal leaves nothing behind and the caller's transaction usable.
 * `alsoLock` names accounts the guard reads that the entry's lines do not touch.
 */
export async function postEntry(
  client: Queryable,
  spec: EntrySpec,
  options: {
    guard?: (balances: ReadonlyMap<AccountKind, bigint>) => void;
    alsoLock?: readonly AccountKind[];
  } = {},
): Promise<PostedEntry> {
  assertBalanced(spec);
  const earlier = await findEntry(client, spec.kind, spec.reference);
  if (earlier) return repeatOf(earlier, spec);

  const accounts = await merchantAccounts(client, spec.merchantId);
  const balances = await lockBalances(client, [
    ...spec.lines.map((line) => accounts[line.account]),
    ...(options.alsoLock ?? []).map((kind) => accounts[kind]),
  ]);
  const raced = await findEntry(client, spec.kind, spec.reference);
  if (raced) return repeatOf(raced, spec);
  options.guard?.(balances);

  const entryId = randomUUID();
  // ON CONFLICT covers a duplicate that did not take the same locks (same reference for another
  // merchant, or the other resolution of a hold); the conflict is then read back, never matched by
  // message.
  const inserted = await client.query(
    `INSERT INTO journal_entries (id, kind, reference, merchant_id) VALUES ($1, $2, $3, $4)
     ON CONFLICT DO NOTHING`,
    [entryId, spec.kind, spec.reference, spec.merchantId],
  );
  if (inserted.rowCount === 0) {
    const other = await findEntry(client, spec.kind, spec.reference);
    if (other) return repeatOf(other, spec);
    throw new ConflictError(`${spec.kind} ${spec.reference} conflicts with another journal entry`);
  }
  await insertLines(
    client,
    spec.lines.map((line, i) => ({ entryId, lineNo: i + 1, accountId: accounts[line.account].id, ...line })),
  );
  return { entryId, created: true };
}

/** A journal line ready to insert: its entry, its position in the entry and its account's id. */
export interface LineRow {
  entryId: string;
  lineNo: number;
  accountId: string;
  side: Side;
  amount: bigint;
}

/** Journal lines as the one JSON document insertLinesDocument sends. */
export function linesDocument(lines: readonly LineRow[]): string {
  return JSON.stringify(
    lines.map((l) => ({
      entry_id: l.entryId,
      line_no: l.lineNo,
      account_id: l.accountId,
      side: l.side,
      // A string: exact at any size, and JSON has no bigint.
      amount: l.amount.toString(),
    })),
  );
}

/**
 * Inserts journal lines of one or many entries in one statement, the only place lines are written:
 * the balance rows follow by trigger and the entries' balance is checked again at COMMIT. The lines
 * go as one JSON document (a credit batch's 6,000 lines as six arrays cost pg an escape of every
 * element).
 */
export async function insertLines(client: Queryable, lines: readonly LineRow[]): Promise<void> {
  await insertLinesDocument(client, linesDocument(lines));
}

/**
 * insertLines of a document built ahead (linesDocument): a credit batch builds it before it locks the
 * balance rows. The document goes as `json`, parsed once by the statement, not as `jsonb` (parsed
 * into a tree first: twice the time for a batch's 3,000 lines, spent while the batch holds the
 * ledger's shared balance rows).
 */
export async function insertLinesDocument(client: Queryable, document: string): Promise<void> {
  await client.query(
    `INSERT INTO journal_lines (entry_id, line_no, account_id, currency, side, amount)
     SELECT l.entry_id, l.line_no, l.account_id, $1, l.side, l.amount
       FROM json_to_recordset($2::json) AS l(entry_id uuid, line_no smallint, account_id uuid, side text, amount numeric)`,
    [LEDGER_CURRENCY, document],
  );
}
