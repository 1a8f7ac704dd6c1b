import { randomUUID } from "node:crypto";
import { AppError, ConflictError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { type AccountKind, LEDGER_CURRENCY, type LedgerAccount, lockBalances } from "./accounts.ts";
import { findEntry, insertLines, type LineSpec, oppositeSide, sameLines } from "./journal-entry.ts";

/** Entries that belong to no merchant and touch only system accounts (the float, bank suspense). */
export type SystemEntryKind =
  | "float_receipt"
  | "float_reversal"
  | "bank_suspense_in"
  | "bank_suspense_out"
  | "bank_return_paid"
  | "bank_return_bounced";

async function systemAccounts(
  client: Queryable,
  kinds: readonly AccountKind[],
): Promise<Map<AccountKind, LedgerAccount>> {
  const { rows } = await client.query<{ id: string; kind: AccountKind }>(
    "SELECT id, kind FROM ledger_accounts WHERE merchant_id IS NULL AND currency = $1 AND kind = ANY($2::text[])",
    [LEDGER_CURRENCY, kinds],
  );
  const accounts = new Map(rows.map((r) => [r.kind, { id: r.id, kind: r.kind, merchantId: null }]));
  for (const kind of kinds) {
    if (!accounts.has(kind))
      throw new AppError("internal_error", `Ledger system account ${kind} is missing: are the migrations applied?`);
  }
  return accounts;
}

/** Posts a system entry (no merchant) once per (kind, reference); a repeat answers the first. */
export async function postSystemEntry(
  client: Queryable,
  kind: SystemEntryKind,
  reference: string,
  lines: readonly LineSpec[],
): Promise<{ entryId: string; created: boolean }> {
  const accounts = await systemAccounts(client, [...new Set(lines.map((l) => l.account))]);
  await lockBalances(client, [...accounts.values()]);
  // Read under the locks: a concurrent posting of the same reference has committed by now.
  const earlier = await findEntry(client, kind, reference);
  if (earlier) {
    if (earlier.merchantId !== null || !sameLines(earlier.lines, lines)) {
      throw new ConflictError(`${kind} ${reference} was already posted with different figures`);
    }
    return { entryId: earlier.id, created: false };
  }
  const entryId = randomUUID();
  await client.query("INSERT INTO journal_entries (id, kind, reference, merchant_id) VALUES ($1, $2, $3, NULL)", [
    entryId,
    kind,
    reference,
  ]);
  await insertLines(
    client,
    lines.map((line, i) => {
      const account = accounts.get(line.account);
      if (!account) throw new AppError("internal_error", `no ${line.account} account`);
      return { entryId, lineNo: i + 1, accountId: account.id, side: line.side, amount: line.amount };
    }),
  );
  return { entryId, created: true };
}

/**
 * The exact opposite of the system entry `kind` of `reference`, posted as `reversal` under the same
 * reference (once; a repeat answers the first); null when the entry was never posted.
 */
export async function postSystemReversal(
  client: Queryable,
  kind: SystemEntryKind,
  reversal: SystemEntryKind,
  reference: string,
): Promise<{ entryId: string } | null> {
  const posted = await findEntry(client, kind, reference);
  if (!posted) return null;
  const lines = posted.lines.map((line) => ({ ...line, side: oppositeSide(line.side) }));
  const { entryId } = await postSystemEntry(client, reversal, reference, lines);
  return { entryId };
}
