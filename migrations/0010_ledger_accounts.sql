-- The double-entry ledger's accounts and their derived balances (packages/ledger).
--
-- Amounts are USD micro-units (6 decimals) in numeric(30, 0): integers, never floats.
--
-- Account kinds and normal balances (the side on which the account grows):
--   merchant_available  per merchant  credit-normal  liability: money we owe the merchant, spendable
--   merchant_reserved   per merchant  credit-normal  liability: held for payouts in flight
--   deposit_clearing    system        debit-normal   asset: crypto that arrived on our addresses
--   bank_clearing       system        debit-normal   asset: fiat that arrived on virtual accounts
--   fee_revenue         system        credit-normal  revenue: our fees
--   payout_clearing     system        credit-normal  liability: settled payouts owed to payees until sent
--
-- Sign convention: journal lines carry a side ('debit' or 'credit') and a non-negative amount.
-- account_balances.balance is expressed on the account's normal side, so every account's balance is
-- positive in its usual state: balance = sum(lines on the normal side) - sum(lines on the other side).
-- A merchant's available balance may go below zero only through a deposit reversal (the money left
-- the chain); the ledger refuses every other movement that would overdraw it.
--
-- System accounts are deployment-wide (merchant_id NULL), one per currency; merchant accounts are
-- created on a merchant's first posting.
CREATE TABLE ledger_accounts (
  id uuid PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN (
    'merchant_available', 'merchant_reserved',
    'deposit_clearing', 'bank_clearing', 'fee_revenue', 'payout_clearing'
  )),
  merchant_id uuid REFERENCES merchants (id),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  normal_side text NOT NULL CHECK (normal_side IN ('debit', 'credit')),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((kind IN ('merchant_available', 'merchant_reserved')) = (merchant_id IS NOT NULL)),
  CHECK (normal_side = CASE WHEN kind IN ('deposit_clearing', 'bank_clearing') THEN 'debit' ELSE 'credit' END),
  -- Lets journal lines reference (account, currency) so a line's currency is its account's.
  UNIQUE (id, currency),
  UNIQUE NULLS NOT DISTINCT (kind, merchant_id, currency)
);

-- One row per account, kept equal to the sum of its journal lines by a trigger on journal_lines in
-- the same transaction as the line; postings lock the rows they touch (SELECT ... FOR UPDATE) before
-- deciding, which is what makes a hold's funds check safe under concurrency. `ledger check` proves
-- each row against its lines.
CREATE TABLE account_balances (
  account_id uuid PRIMARY KEY REFERENCES ledger_accounts (id),
  balance numeric(30, 0) NOT NULL DEFAULT 0,
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);

CREATE FUNCTION ledger_account_open_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO account_balances (account_id) VALUES (NEW.id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER ledger_accounts_open_balance AFTER INSERT ON ledger_accounts
  FOR EACH ROW EXECUTE FUNCTION ledger_account_open_balance();

-- An account's identity never changes and an account is never removed: its lines point at it.
CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER ledger_accounts_immutable BEFORE UPDATE OR DELETE ON ledger_accounts
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER ledger_accounts_no_truncate BEFORE TRUNCATE ON ledger_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();

INSERT INTO ledger_accounts (id, kind, merchant_id, currency, normal_side) VALUES
  (gen_random_uuid(), 'deposit_clearing', NULL, 'USD', 'debit'),
  (gen_random_uuid(), 'bank_clearing', NULL, 'USD', 'debit'),
  (gen_random_uuid(), 'fee_revenue', NULL, 'USD', 'credit'),
  (gen_random_uuid(), 'payout_clearing', NULL, 'USD', 'credit');
