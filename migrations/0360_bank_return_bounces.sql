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

DO $$
DECLARE
  before text;
  after text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'journal_entries'::regclass AND conname = 'journal_entries_kind_check';
  after := replace(before, '::text])', '::text, ''bank_return_bounced''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'journal_entries_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
  EXECUTE 'ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check ' || after;
END;
$$;
