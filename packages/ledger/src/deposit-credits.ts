import { randomUUID } from "node:crypto";
import { AppError, ConflictError, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import {
  isComplete,
  LEDGER_CURRENCY,
  type LedgerAccount,
  lockBalances,
  type MerchantAccounts,
  merchantAccounts,
} from "./accounts.ts";
import { creditInput, depositCreditLines } from "./deposits.ts";
import { parseInput } from "./inputs.ts";
import { type LineSpec, sameLines } from "./journal-entry.ts";

export interface DepositCreditInput {
  depositId: string;
  merchantId: string;
  amountUsdMicros: bigint;
  feeUsdMicros: bigint;
}

export interface PostedDepositCredit {
  depositId: string;
  entryId: string;
  /** false when the deposit was already credited and nothing was posted for it. */
  created: boolean;
}

interface AccountRow {
  id: string;
  kind: LedgerAccount["kind"];
  merchant_id: string | null;
}

/** The accounts of every merchant in `merchantIds` (opening those not yet open), in one query when all exist. */
async function accountsOf(client: Queryable, merchantIds: readonly string[]): Promise<Map<string, MerchantAccounts>> {
  const { rows } = await client.query<AccountRow>(
    `SELECT id, kind, merchant_id FROM ledger_accounts
      WHERE currency = $2 AND (merchant_id = ANY($1::uuid[]) OR merchant_id IS NULL)`,
    [merchantIds, LEDGER_CURRENCY],
  );
  const system: Partial<MerchantAccounts> = {};
  const own = new Map<string, Partial<MerchantAccounts>>();
  for (const row of rows) {
    const account = { id: row.id, kind: row.kind, merchantId: row.merchant_id };
    if (row.merchant_id === null) system[row.kind] = account;
    else {
      const accounts = own.get(row.merchant_id) ?? {};
      accounts[row.kind] = account;
      own.set(row.merchant_id, accounts);
    }
  }
  const result = new Map<string, MerchantAccounts>();
  for (const merchantId of merchantIds) {
    const merged = { ...system, ...own.get(merchantId) };
    // A merchant's first posting opens its accounts (and reports an unknown merchant) the usual way.
    result.set(merchantId, isComplete(merged) ? merged : await merchantAccounts(client, merchantId));
  }
  return result;
}

/**
 * Posts the credits of many confirmed deposits in the caller's transaction with a few set-based
 * statements: each one exactly what postDepositCredit posts (one deposit_credit entry referenced by
 * the deposit id, three lines: deposit_clearing debit gross, merchant_available credit net,
 * fee_revenue credit fee). Idempotent per deposit: a deposit already credited with the same figures
 * posts nothing and answers its first entry; with other figures (or for another merchant) it is a
 * ConflictError and nothing is posted. The balance rows of every account touched are locked first,
 * in the ledger's global order, so this never deadlocks with single postings. Returns one result per
 * input, in input order. A deposit id may appear once per call.
 */
export async function postDepositCredits(
  client: Queryable,
  inputs: readonly DepositCreditInput[],
): Promise<PostedDepositCredit[]> {
  if (inputs.length === 0) return [];
  const parsed = inputs.map((input) => parseInput(creditInput, input));
  const specs = parsed.map((input) => ({ ...input, lines: depositCreditLines(input) }));
  const references = specs.map((s) => s.depositId);
  if (new Set(references).size !== references.length) {
    throw new ValidationError("depositId: a deposit appears more than once in one call", "depositId");
  }

  const merchantIds = [...new Set(specs.map((s) => s.merchantId))].sort();
  const accounts = await accountsOf(client, merchantIds);
  const touched = [...accounts.values()].flatMap((a) => [a.deposit_clearing, a.merchant_available, a.fee_revenue]);
  await lockBalances(client, touched);

  // Read under the locks: a concurrent credit of the same deposit has committed by now.
  const earlier = await storedCredits(client, references);
  const fresh: typeof specs = [];
  const results = new Map<string, PostedDepositCredit>();
  for (const spec of specs) {
    const stored = earlier.get(spec.depositId);
    if (!stored) {
      fresh.push(spec);
      continue;
    }
    if (stored.merchantId !== spec.merchantId || !sameLines(stored.lines, spec.lines)) {
      throw new ConflictError(`deposit_credit ${spec.depositId} was already posted with different figures`);
    }
    results.set(spec.depositId, { depositId: spec.depositId, entryId: stored.id, created: false });
  }

  if (fresh.length > 0) {
    const entryIds = fresh.map(() => randomUUID());
    const inserted = await client.query(
      `INSERT INTO journal_entries (id, kind, reference, merchant_id)
       SELECT e.id, 'deposit_credit', e.reference, e.merchant_id
         FROM unnest($1::uuid[], $2::text[], $3::uuid[]) WITH ORDINALITY AS e(id, reference, merchant_id, ord)
        ORDER BY e.ord
       ON CONFLICT DO NOTHING`,
      [entryIds, fresh.map((s) => s.depositId), fresh.map((s) => s.merchantId)],
    );
    if (inserted.rowCount !== fresh.length) {
      // Only a writer that skipped the balance locks can get here; the caller's transaction must roll back.
      throw new ConflictError("deposit_credit entries conflict with other journal entries");
    }
    const lineEntry: string[] = [];
    const lineNo: number[] = [];
    const lineAccount: string[] = [];
    const lineSide: string[] = [];
    const lineAmount: string[] = [];
    fresh.forEach((spec, i) => {
      const own = accounts.get(spec.merchantId);
      const entryId = entryIds[i];
      if (!own || !entryId) throw new AppError("internal_error", "deposit credit lost its accounts");
      spec.lines.forEach((line, n) => {
        lineEntry.push(entryId);
        lineNo.push(n + 1);
        lineAccount.push(own[line.account].id);
        lineSide.push(line.side);
        lineAmount.push(line.amount.toString());
      });
      results.set(spec.depositId, { depositId: spec.depositId, entryId, created: true });
    });
    await client.query(
      `INSERT INTO journal_lines (entry_id, line_no, account_id, currency, side, amount)
       SELECT l.entry_id, l.line_no, l.account_id, $1, l.side, l.amount
         FROM unnest($2::uuid[], $3::smallint[], $4::uuid[], $5::text[], $6::numeric[])
              AS l(entry_id, line_no, account_id, side, amount)`,
      [LEDGER_CURRENCY, lineEntry, lineNo, lineAccount, lineSide, lineAmount],
    );
  }
  return specs.map((spec) => {
    const result = results.get(spec.depositId);
    if (!result) throw new AppError("internal_error", `deposit credit ${spec.depositId} has no result`);
    return result;
  });
}

/** The deposit_credit entries already posted for `references`, with their lines in line order. */
async function storedCredits(
  client: Queryable,
  references: readonly string[],
): Promise<Map<string, { id: string; merchantId: string | null; lines: LineSpec[] }>> {
  const { rows } = await client.query<{
    id: string;
    reference: string;
    merchant_id: string | null;
    account: LineSpec["account"] | null;
    side: LineSpec["side"] | null;
    amount: string | null;
  }>(
    `SELECT e.id, e.reference, e.merchant_id, a.kind AS account, l.side, l.amount::text AS amount
       FROM journal_entries e
       LEFT JOIN journal_lines l ON l.entry_id = e.id
       LEFT JOIN ledger_accounts a ON a.id = l.account_id
      WHERE e.kind = 'deposit_credit' AND e.reference = ANY($1::text[])
      ORDER BY e.reference, l.line_no`,
    [references],
  );
  const stored = new Map<string, { id: string; merchantId: string | null; lines: LineSpec[] }>();
  for (const row of rows) {
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
