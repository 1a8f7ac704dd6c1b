-- A completed transfer's fee, earned (issue 15): the fee was part of what the transfer held and
-- settled into payout_clearing; when the payout is confirmed, that part is ours.
--   transfer_fee  payout_clearing (debit) -> fee_revenue (credit), referenced by the transfer id
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN (
  'deposit_credit', 'deposit_reversal', 'bank_deposit', 'hold', 'hold_settle', 'hold_release',
  'held_release', 'held_return', 'float_receipt', 'float_reversal', 'transfer_fee'
));
