import { AppError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";

/** The ledger's one currency today; accounts and lines carry it so more can be added. */
export const LEDGER_CURRENCY = "USD";

export type MerchantAccountKind = "merchant_available" | "merchant_reserved" | "merchant_held";
export type SystemAccountKind =
  | "deposit_clearing"
  | "bank_clearing"
  | "fee_revenue"
  | "payout_clearing"
  | "returns_payable"
  | "operator_float"
  | "bank_suspense";
export type AccountKind = MerchantAccountKind | SystemAccountKind;
export type Side = "debit" | "credit";

export const MERCHANT_ACCOUNT_KINDS: readonly MerchantAccountKind[] = [
  "merchant_available",
  "merchant_reserved",
  "merchant_held",
];
export const SYSTEM_ACCOUNT_KINDS: readonly SystemAccountKind[] = [
  "deposit_clearing",
  "bank_clearing",
  "fee_revenue",
  "payout_clearing",
  "returns_payable",
  "operator_float",
  "bank_suspense",
];

export interface LedgerAccount {
  id: string;
  kind: AccountKind;
  /** null for the deployment-wide system accounts. */
  merchantId: string | null;
}

/** The accounts one merchant's postings can touch: its own three and the system accounts. */
export type MerchantAccounts = Record<AccountKind, LedgerAccount>;

interface AccountRow {
  id: string;
  kind: AccountKind;
  merchant_id: string | null;
}

const SELECT_ACCOUNTS = `SELECT id, kind, merchant_id FROM ledger_accounts
  WHERE currency = $2 AND (merchant_id = $1 OR merchant_id IS NULL)`;

function toAccounts(rows: AccountRow[]): Partial<MerchantAccounts> {
  const accounts: Partial<MerchantAccounts> = {};
  for (const row of rows) accounts[row.kind] = { id: row.id, kind: row.kind, merchantId: row.merchant_id };
  return accounts;
}

/** True when `accounts` holds every kind a merchant's postings can touch. */
export function isComplete(accounts: Partial<MerchantAccounts>): accounts is MerchantAccounts {
  return [...MERCHANT_ACCOUNT_KINDS, ...SYSTEM_ACCOUNT_KINDS].every((kind) => accounts[kind] !== undefined);
}

/**
 * The merchant's accounts and the system accounts, opening the merchant's on its first posting.
 * Opening is race-free: a concurrent opener's insert waits on the unique key and then does nothing.
 */
export async function merchantAccounts(client: Queryable, merchantId: string): Promise<MerchantAccounts> {
  let accounts = toAccounts((await client.query<AccountRow>(SELECT_ACCOUNTS, [merchantId, LEDGER_CURRENCY])).rows);
  if (isComplete(accounts)) return accounts;
  // Checked first so an unknown merchant is a NotFoundError, not a failed statement that would abort
  // the caller's transaction.
  const merchant = await client.query("SELECT 1 FROM merchants WHERE id = $1", [merchantId]);
  if (merchant.rowCount === 0) throw new NotFoundError("Merchant");
  await openMerchantAccounts(client, [merchantId]);
  accounts = toAccounts((await client.query<AccountRow>(SELECT_ACCOUNTS, [merchantId, LEDGER_CURRENCY])).rows);
  if (!isComplete(accounts)) {
    throw new AppError("internal_error", "Ledger system accounts are missing: are the migrations applied?");
  }
  return accounts;
}

/**
 * Opens the accounts of each merchant in `merchantIds` that has none yet, in one statement (nothing
 * when all are open; unknown merchants are left to the posting that names them). For a caller about
 * to credit the same merchants in concurrent transactions: a merchant's first posting opens its
 * accounts (merchantAccounts), and a second transaction opening them too waits for the first one's
 * COMMIT, whole postings after it.
 */
export async function openMerchantAccounts(client: Queryable, merchantIds: readonly string[]): Promise<void> {
  if (merchantIds.length === 0) return;
  await client.query(
    `INSERT INTO ledger_accounts (id, kind, merchant_id, currency, normal_side)
     SELECT gen_random_uuid(), k.kind, m.id, $2, 'credit'
       FROM merchants m CROSS JOIN unnest($3::text[]) AS k(kind)
      WHERE m.id = ANY($1::uuid[])
        AND NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.kind = k.kind AND a.merchant_id = m.id AND a.currency = $2)
     ON CONFLICT DO NOTHING`,
    [merchantIds, LEDGER_CURRENCY, MERCHANT_ACCOUNT_KINDS],
  );
}

/**
 * Locks the balance rows of `accounts` (SELECT ... FOR UPDATE) and returns their balances, together
 * with every system account's row: the system rows are the ledger's gate. Rows are locked in one
 * global order, system accounts first, so the first lock of a transaction takes the gate and a
 * transaction holding any balance row holds all the system rows: two transactions never wait on each
 * other's balance rows in a cycle, however many entries each posts. Without it, a transaction
 * posting two entries (a payout's settle, reserved -> payout_clearing, then its fee, payout_clearing
 * -> fee_revenue) took fee_revenue after payout_clearing, against the order, and deadlocked with
 * deposit credits and drains (2,217 deadlocks in one `pnpm bench liquidation`, each costing the
 * deadlock_timeout, 1 s). Postings that touch a system account (nearly all) passed these rows
 * anyway; merchant-only ones (holds) now pass them too. A deposit credit writes its entries before,
 * in the order of their references (deposit-credits.ts).
 */
export async function lockBalances(
  client: Queryable,
  accounts: readonly LedgerAccount[],
): Promise<Map<AccountKind, bigint>> {
  const ids = accounts.map((a) => a.id);
  // FOR UPDATE locks rows in the order the ORDER BY returns them: system rows first by kind, then the
  // merchants' by kind and id. The order is the statement's, whatever the order of `accounts`.
  const result = await client.query<{ account_id: string; balance: string }>(
    `SELECT b.account_id, b.balance::text AS balance
       FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id
      WHERE b.account_id = ANY($1::uuid[] || ARRAY(
              SELECT id FROM ledger_accounts WHERE kind = ANY($2::text[]) AND merchant_id IS NULL AND currency = $3))
      ORDER BY a.merchant_id IS NOT NULL, a.kind COLLATE "C", a.id
        FOR UPDATE OF b`,
    [ids, SYSTEM_ACCOUNT_KINDS, LEDGER_CURRENCY],
  );
  const byId = new Map(result.rows.map((r) => [r.account_id, BigInt(r.balance)]));
  const balances = new Map<AccountKind, bigint>();
  for (const account of accounts) {
    const balance = byId.get(account.id);
    if (balance === undefined) throw new AppError("internal_error", `Ledger account ${account.id} has no balance row`);
    balances.set(account.kind, balance);
  }
  return balances;
}
