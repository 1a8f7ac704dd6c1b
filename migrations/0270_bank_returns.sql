-- Bank money goes back by bank (issue 29, item 2, bank part; docs/returns.md "Bank returns").
--
-- The payer's account a statement credit names (camt.053 RltdPties/DbtrAcct, Dbtr, RltdAgts/DbtrAgt;
-- the CSV's counterparty_* columns), sealed like bank details (AES-256-GCM, the line's id as
-- associated data): where a bank return pays the money back. Null when the line names none.
ALTER TABLE bank_statement_lines
  ADD COLUMN payer_ciphertext bytea,
  ADD COLUMN payer_key_id text,
  ADD CONSTRAINT bank_statement_lines_payer_sealed CHECK ((payer_ciphertext IS NULL) = (payer_key_id IS NULL));

-- One bank return per origin: a statement line finance returns (origin 'suspense', the line's money
-- still in bank_suspense until paid), or a bank credit taken back from the merchant by its `return`
-- policy (late_funding, excess, failed_payout: merchant_available -> returns_payable, entry
-- 'bank_policy_return' referenced by the return's id). Its id is the banking provider's payout key.
--   payable   owed, nothing sent: the reason says why (no payer account, no routing number)
--   sending   the payout is asked of the provider (provider_payout_id once it answered)
--   returned  the bank paid it: the money leaves the bank (suspense: bank_suspense_out; policy:
--             'bank_return_paid' returns_payable -> bank_clearing)
--   failed    the bank refused it or sent it back: nothing left, still owed (reason)
CREATE TABLE bank_returns (
  id uuid PRIMARY KEY,
  origin text NOT NULL CHECK (origin IN ('suspense', 'late_funding', 'excess', 'failed_payout')),
  statement_line_id uuid UNIQUE REFERENCES bank_statement_lines (id),
  bank_deposit_id uuid UNIQUE REFERENCES bank_deposits (id),
  merchant_id uuid REFERENCES merchants (id),
  transfer_id uuid REFERENCES transfers (id),
  -- What goes back, in micro-dollars of whole cents (a bank pays cents).
  owed_usd_micros numeric(30, 0) NOT NULL CHECK (owed_usd_micros > 0 AND owed_usd_micros % 10000 = 0),
  state text NOT NULL CHECK (state IN ('payable', 'sending', 'returned', 'failed')),
  reason text,
  provider text,
  provider_payout_id text,
  requested_at timestamptz(3),
  next_check_at timestamptz(3) NOT NULL DEFAULT now(),
  taken_entry_id uuid REFERENCES journal_entries (id),
  paid_entry_id uuid REFERENCES journal_entries (id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  returned_at timestamptz(3),
  CHECK ((origin = 'suspense') = (statement_line_id IS NOT NULL AND bank_deposit_id IS NULL)),
  CHECK ((origin = 'suspense') = (merchant_id IS NULL)),
  -- A policy return's taking-back entry is posted in the transaction that inserts it (after the row:
  -- the entry is referenced by the row's id); `ledger check` finds one for every such row.
  CHECK (origin <> 'suspense' OR taken_entry_id IS NULL),
  CHECK ((state = 'returned') = (returned_at IS NOT NULL)),
  CHECK (state <> 'returned' OR origin = 'suspense' OR paid_entry_id IS NOT NULL),
  CHECK (state = 'sending' OR state = 'returned' OR reason IS NOT NULL),
  CHECK (state <> 'payable' OR requested_at IS NULL)
);
CREATE INDEX bank_returns_sending ON bank_returns (next_check_at) WHERE state = 'sending';
CREATE INDEX bank_returns_transfer ON bank_returns (transfer_id) WHERE transfer_id IS NOT NULL;

DO $$
DECLARE
  before text;
  after text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'journal_entries'::regclass AND conname = 'journal_entries_kind_check';
  after := replace(before, '::text])', '::text, ''bank_policy_return''::text, ''bank_return_paid''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'journal_entries_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
  EXECUTE 'ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check ' || after;
END;
$$;
