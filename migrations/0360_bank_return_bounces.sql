-- A bank return's own payout that the payer's bank sends back after it was paid (issue 29;
-- docs/returns.md "Bank returns"): the return was `returned` (its money out of the books: a policy
-- return's 'bank_return_paid', a suspense line's 'bank_suspense_out'), then a statement line returns
-- its payout (the statement bank's payout RETURNED) or the provider answers RETURNED. The return is
-- `failed` again, still owed, and the money comes back, once per payout key (a return sent again
-- after a bounce gets a new key, and may bounce again):
--   a policy return: 'bank_return_bounced', bank_clearing -> returns_payable, referenced by the key;
--   a suspense return: the line is in suspense again, 'bank_suspense_in' referenced by
--   '<line id>:<payout key>' (a line's later stay in suspense; bank-suspense.ts).
CREATE TABLE bank_return_bounces (
  payout_key uuid PRIMARY KEY,
  return_id uuid NOT NULL REFERENCES bank_returns (id),
  -- The entry that took the money out when the bank paid (bank_return_paid or bank_suspense_out);
  -- null for a suspense line imported before suspense existed (nothing was posted either way).
  paid_entry_id uuid UNIQUE REFERENCES journal_entries (id),
  -- The entry that brings it back (bank_return_bounced, or the line's new bank_suspense_in).
  bounce_entry_id uuid UNIQUE REFERENCES journal_entries (id),
  CHECK ((paid_entry_id IS NULL) = (bounce_entry_id IS NULL)),
  -- The bank's reason, as the return's own reason told it.
  reason text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX bank_return_bounces_return ON bank_return_bounces (return_id);

-- A paid return is asked about again (hourly, for the ACH return window), as a completed transfer
-- payout is; a statement line returning it makes it due at once.
CREATE INDEX bank_returns_returned ON bank_returns (next_check_at) WHERE state = 'returned';

-- The journal's kinds, the new one last (the list as 0300 left it; one statement, so the table is
-- never without its check).
ALTER TABLE journal_entries
  DROP CONSTRAINT journal_entries_kind_check,
  ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN (
    'deposit_credit', 'deposit_reversal', 'bank_deposit', 'hold', 'hold_settle', 'hold_release', 'held_release',
    'held_return', 'float_receipt', 'float_reversal', 'transfer_fee', 'transfer_refund', 'funding_fee_refund',
    'bank_suspense_in', 'bank_suspense_out', 'deposit_return', 'policy_return', 'bank_policy_return',
    'bank_return_paid', 'bank_return_closed', 'bank_return_bounced'));
