-- An operator acts on a stuck bank return (issue 29; docs/returns.md "Bank returns", docs/cli.md):
-- `payments bank return-send` gives a payable or failed return a destination account and sends it
-- (again), `payments bank return-close` closes it (the money back to suspense or to the merchant).
--
-- The bank's idempotency key of the return's current payout. The first is the return's id (every
-- row before this migration); a re-send after the bank refused the payout needs a new one, since the
-- bank answers a known key with the payout it already refused.
ALTER TABLE bank_returns
  ADD COLUMN payout_key uuid,
  -- The account an operator gave (the payer's bank details, sealed like every bank detail:
  -- AES-256-GCM, the return's id as associated data); null: the account its statement line names.
  ADD COLUMN destination_ciphertext bytea,
  ADD COLUMN destination_key_id text,
  -- A closed policy return's entry giving the money back to the merchant ('bank_return_closed',
  -- returns_payable -> merchant_available, referenced by the return's id).
  ADD COLUMN closed_entry_id uuid REFERENCES journal_entries (id),
  ADD COLUMN closed_at timestamptz(3);
UPDATE bank_returns SET payout_key = id;
ALTER TABLE bank_returns
  ALTER COLUMN payout_key SET NOT NULL,
  ADD CONSTRAINT bank_returns_payout_key_key UNIQUE (payout_key),
  ADD CONSTRAINT bank_returns_destination_sealed CHECK ((destination_ciphertext IS NULL) = (destination_key_id IS NULL));

--   closed    an operator closed it: nothing sent, nothing owed by bank any more; a suspense line is
--             unmatched again (its money never left bank_suspense), a policy return's money is the
--             merchant's again (closed_entry_id). The reason says why.
ALTER TABLE bank_returns DROP CONSTRAINT bank_returns_state_check;
ALTER TABLE bank_returns
  ADD CONSTRAINT bank_returns_state_check CHECK (state IN ('payable', 'sending', 'returned', 'failed', 'closed')),
  ADD CONSTRAINT bank_returns_closed_at CHECK ((state = 'closed') = (closed_at IS NOT NULL)),
  ADD CONSTRAINT bank_returns_closed_entry CHECK (
    (state = 'closed' AND origin <> 'suspense') = (closed_entry_id IS NOT NULL));

-- A suspense line finance closed the return of is unmatched again and may be returned once more: one
-- open return per line (a policy return's bank deposit keeps its one return, closed or not: the
-- merchant keeps money an operator closed the return of).
ALTER TABLE bank_returns DROP CONSTRAINT bank_returns_statement_line_id_key;
CREATE UNIQUE INDEX bank_returns_open_line ON bank_returns (statement_line_id) WHERE state <> 'closed';

DO $$
DECLARE
  before text;
  after text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'journal_entries'::regclass AND conname = 'journal_entries_kind_check';
  after := replace(before, '::text])', '::text, ''bank_return_closed''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'journal_entries_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
  EXECUTE 'ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check ' || after;
END;
$$;
