import { randomBytes, randomUUID } from "node:crypto";
import type { Database, Queryable } from "@mp/db";
import { insertMerchantWithCustomer } from "../../../test/support/db-fixtures.ts";
import { eventually } from "../../../test/support/eventually.ts";
import { type DepositCreditInput, postBankDeposit, postDepositCredits, postDepositReversal } from "../src/index.ts";

/** A merchant with one customer, wallet and BASE destination, so deposits can be recorded for it. */
export interface MerchantFixture {
  merchantId: string;
  walletId: string;
  destinationId: string;
  customerId: string;
}

export async function createMerchant(db: Database): Promise<MerchantFixture> {
  const walletId = randomUUID();
  const destinationId = randomUUID();
  const { merchantId, customerId } = await db.tx(async (c) => {
    // Serialise derivation-account allocation between concurrent fixture calls.
    await c.query("SELECT pg_advisory_xact_lock(4242)");
    const { merchantId, customerId } = await insertMerchantWithCustomer(c, "Ledger test");
    await c.query(
      "INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index) VALUES ($1, $2, $3, 'main', 0)",
      [walletId, merchantId, customerId],
    );
    const address = `0x${randomBytes(20).toString("hex")}`;
    await c.query(
      `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path)
       VALUES ($1, $2, $3, 'BASE', $4, $4, 'm/44''/60''/0''/0/0')`,
      [destinationId, walletId, merchantId, address],
    );
    return { merchantId, customerId };
  });
  return { merchantId, walletId, destinationId, customerId };
}

/**
 * A confirmed deposit row as the indexer writes it, not credited yet, and the credit input that
 * would credit it (checkLedger matches every credit to its deposit).
 */
export async function uncreditedDeposit(
  q: Queryable,
  m: MerchantFixture,
  amounts: { gross: bigint; fee: bigint },
): Promise<DepositCreditInput> {
  const id = randomUUID();
  await q.query(
    `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, to_address,
       tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations, status,
       usd_rate, amount_usd_micros, fee_usd_micros, net_amount_usd_micros, confirmed_at)
     VALUES ($1, $2, $3, $4, $5, 'BASE', 'USDC', '0xto', $6, 'log:0', 1, '0xblock', 6, $7, 3, 'CONFIRMED',
       '1', $7, $8, $9, now())`,
    [
      id,
      m.merchantId,
      m.walletId,
      m.destinationId,
      m.customerId,
      `0x${randomBytes(32).toString("hex")}`,
      amounts.gross.toString(),
      amounts.fee.toString(),
      (amounts.gross - amounts.fee).toString(),
    ],
  );
  return { depositId: id, merchantId: m.merchantId, amountUsdMicros: amounts.gross, feeUsdMicros: amounts.fee };
}

/**
 * A merchant whose ledger accounts are open (by a credit committed first): a merchant's first credit
 * opens them, and a concurrent credit would wait for it there rather than where a test means it to.
 */
export async function merchantWithOpenAccounts(db: Database): Promise<MerchantFixture> {
  const m = await createMerchant(db);
  const opening = await uncreditedDeposit(db, m, { gross: USD, fee: 0n });
  await db.tx((c) => postDepositCredits(c, [opening]));
  return m;
}

/** One deposit's credit, posted alone. */
export async function postOneCredit(c: Queryable, input: DepositCreditInput): Promise<{ entryId: string }> {
  const [posted] = await postDepositCredits(c, [input]);
  if (!posted) throw new Error("postDepositCredits answered nothing");
  return { entryId: posted.entryId };
}

/**
 * A confirmed deposit credited the way the indexer does it: row, ledger entry and link in one
 * transaction; `held` as for a rejected customer (to merchant_held).
 */
export async function creditDeposit(
  db: Database,
  m: MerchantFixture,
  amounts: { gross: bigint; fee: bigint },
  options: { held?: boolean } = {},
): Promise<{ depositId: string; entryId: string }> {
  const held = options.held ?? false;
  return db.tx(async (c) => {
    const { depositId, ...input } = await uncreditedDeposit(c, m, amounts);
    const { entryId } = await postOneCredit(c, { depositId, ...input, held });
    await c.query(
      `UPDATE deposits SET credit_entry_id = $2, hold_status = CASE WHEN $3 THEN 'HELD' END,
              held_reason = CASE WHEN $3 THEN 'customer_rejected' END
        WHERE id = $1`,
      [depositId, entryId, held],
    );
    return { depositId, entryId };
  });
}

/** A reorged-out deposit reversed the way the indexer does it. */
export async function reverseDeposit(
  db: Database,
  m: MerchantFixture,
  depositId: string,
): Promise<{ entryId: string } | null> {
  return db.tx(async (c) => {
    const reversal = await postDepositReversal(c, { depositId, merchantId: m.merchantId });
    await c.query(
      "UPDATE deposits SET status = 'REVERSED', reversed_at = now(), reversal_entry_id = $2 WHERE id = $1",
      [depositId, reversal?.entryId ?? null],
    );
    return reversal;
  });
}

/** A bank deposit recorded the way the API does it: ledger entry, then the bank_deposits row. */
export async function creditBankDeposit(db: Database, m: MerchantFixture, amount: bigint): Promise<string> {
  return db.tx(async (c) => {
    const id = randomUUID();
    const { entryId } = await postBankDeposit(c, {
      bankDepositId: id,
      merchantId: m.merchantId,
      amountUsdMicros: amount,
    });
    const account = randomUUID();
    await c.query(
      `INSERT INTO virtual_accounts (id, merchant_id, customer_id, currency, status, provider_account_id,
         account_number_last4, account_type, bank_name, supported_rails, instructions_ciphertext, instructions_key_id)
       VALUES ($1, $2, $3, 'USD', 'FAILED', $4, '1234', 'checking', 'Test Bank', '[]', '\\x00', 'k1')`,
      [account, m.merchantId, m.customerId, `pa_${account}`],
    );
    await c.query(
      `INSERT INTO bank_deposits (id, merchant_id, virtual_account_id, customer_id, amount_usd_micros, ledger_entry_id)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, m.merchantId, account, m.customerId, amount.toString(), entryId],
    );
    return entryId;
  });
}

/** The balance of a deployment-wide system account (deposit_clearing, fee_revenue, ...). */
export async function systemBalance(q: Queryable, kind: string): Promise<bigint> {
  const r = await q.query<{ balance: string }>(
    `SELECT b.balance::text AS balance FROM account_balances b JOIN ledger_accounts a ON a.id = b.account_id
      WHERE a.kind = $1 AND a.merchant_id IS NULL`,
    [kind],
  );
  return BigInt(r.rows[0]?.balance ?? "NaN");
}

/** One US dollar in the ledger's micro-units, for readable test figures (`25n * USD`). */
export const USD = 1_000_000n;

/** Records each credit entry on its deposit, as the indexer does in the credit's transaction. */
export async function linkCreditEntries(q: Queryable): Promise<void> {
  await q.query(
    `UPDATE deposits d SET credit_entry_id = e.id FROM journal_entries e
      WHERE e.kind = 'deposit_credit' AND e.reference = d.id::text AND d.credit_entry_id IS NULL`,
  );
}

/**
 * Resolves once `count` backends of this database wait for a lock, in a statement beginning with
 * `statement` when given; `what` names the wait in the timeout's error.
 */
export async function waitingForLocks(db: Database, count: number, what: string, statement = ""): Promise<void> {
  await eventually(
    async () => {
      const waiting = await db.query(
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
            AND query LIKE $1`,
        [`${statement}%`],
      );
      return (waiting.rowCount ?? 0) >= count ? true : undefined;
    },
    30_000,
    20,
    what,
  );
}
