-- Held money (deposits to a customer the merchant may not be paid for: see README "Held deposits").
--
-- New account kinds (sign conventions in 0010_ledger_accounts.sql):
--   merchant_held    per merchant  credit-normal  liability: received for the merchant, not spendable
--                                                 until an operator releases it (or returns it)
--   returns_payable  system        credit-normal  liability: held money owed back to its payers until
--                                                 it is sent back on chain
-- New entry kinds, each referenced by the deposit id, at most one of the two per deposit:
--   held_release  merchant_held -> merchant_available (the operator released the deposit)
--   held_return   merchant_held + fee_revenue -> returns_payable (the payer is owed the gross back)
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN (
  'merchant_available', 'merchant_reserved', 'merchant_held',
  'deposit_clearing', 'bank_clearing', 'fee_revenue', 'payout_clearing', 'returns_payable'
));
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_check
  CHECK ((kind IN ('merchant_available', 'merchant_reserved', 'merchant_held')) = (merchant_id IS NOT NULL));

INSERT INTO ledger_accounts (id, kind, merchant_id, currency, normal_side)
  VALUES (gen_random_uuid(), 'returns_payable', NULL, 'USD', 'credit');

ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN (
  'deposit_credit', 'deposit_reversal', 'bank_deposit', 'hold', 'hold_settle', 'hold_release',
  'held_release', 'held_return'
));
-- A held deposit is released or returned, never both.
CREATE UNIQUE INDEX journal_entries_one_held_resolution ON journal_entries (reference)
  WHERE kind IN ('held_release', 'held_return');
