import { randomUUID } from "node:crypto";
import { AppError, ConflictError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import { type AccountKind, LEDGER_CURRENCY, type LedgerAccount, lockBalances } from "./accounts.ts";
import { idSchema, microsSchema, parseInput } from "./inputs.ts";
import { findEntry, insertLines, type LineSpec, oppositeSide, sameLines, transferLines } from "./journal-entry.ts";

/**
 * The operator's float (migrations/0103): money an operator sends to a treasury address. It is the
 * operator's, never a merchant's, so its entries belong to no merchant and touch only system accounts:
 * deposit_clearing (the crypto on our addresses) against operator_float.
 *
 * Currency: the ledger has one currency, USD micro-units, and values crypto when it confirms (as a
 * deposit credit does); the float follows that model, valued at the rate provider's USD rate at
 * confirmation. The exact amount in the asset's smallest units stays on the treasury_receipts row,
 * which is what `payments reconcile chains` compares with the chains: a USD figure moves with the
 * market, the chain's amount does not.
 */
const receiptInput = z.object({ receiptId: idSchema, amountUsdMicros: microsSchema });

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
async function postSystemEntry(
  client: Queryable,
  kind: "float_receipt" | "float_reversal",
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

/** A confirmed operator top-up: deposit_clearing -> operator_float, once per receipt. */
export async function postFloatReceipt(
  client: Queryable,
  input: { receiptId: string; amountUsdMicros: bigint },
): Promise<{ entryId: string; created: boolean }> {
  const { receiptId, amountUsdMicros } = parseInput(receiptInput, input);
  return postSystemEntry(
    client,
    "float_receipt",
    receiptId,
    // A debit of deposit_clearing (asset grows) and a credit of operator_float (the operator's equity).
    transferLines("deposit_clearing", "operator_float", amountUsdMicros),
  );
}

/** A float receipt whose block left the chain: the exact opposite of its entry; null when never posted. */
export async function postFloatReversal(client: Queryable, receiptId: string): Promise<{ entryId: string } | null> {
  const posted = await findEntry(client, "float_receipt", receiptId);
  if (!posted) return null;
  const lines = posted.lines.map((line) => ({ ...line, side: oppositeSide(line.side) }));
  const { entryId } = await postSystemEntry(client, "float_reversal", receiptId, lines);
  return { entryId };
}
