-- Payouts of transfers to a US bank account through the banking provider (issue 15).
--
-- transfer_payouts is our record of each payout, one per transfer (the transfer id is the provider's
-- idempotency key). Execution writes it with the transfer's move to PROCESSING, commits, then calls
-- the provider (never inside a transaction), then records what the provider said:
--   REQUESTED  written, the provider not (or not knowingly) called yet: the call is repeated
--   PENDING    the provider has it;  SENT  it left the bank (statement bank: exported in a pain.001)
--   COMPLETED  the bank confirmed it (the transfer is COMPLETED): still checked for a return until
--              returnable_until
--   FAILED     the bank refused it (the transfer is FAILED, its holds released)
--   RETURNED   the payee's bank sent it back after completion (the transfer is REFUNDED: refund_entry_id)
-- next_check_at paces the provider status checks.
CREATE TABLE transfer_payouts (
  transfer_id uuid PRIMARY KEY REFERENCES transfers (id),
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  provider text NOT NULL,
  -- What is paid, in micro-dollars (whole cents) of `currency`: the transfer's destination amount.
  amount numeric(78, 0) NOT NULL CHECK (amount > 0 AND amount % 10000 = 0),
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('REQUESTED', 'PENDING', 'SENT', 'COMPLETED', 'FAILED', 'RETURNED')),
  provider_payout_id text,
  reason text,
  requested_at timestamptz(3) NOT NULL DEFAULT now(),
  next_check_at timestamptz(3) NOT NULL DEFAULT now(),
  completed_at timestamptz(3),
  returnable_until timestamptz(3),
  ended_at timestamptz(3),
  refund_entry_id uuid REFERENCES journal_entries (id),
  refunded_usd_micros numeric(30, 0),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((status = 'REQUESTED') = (provider_payout_id IS NULL)),
  CHECK ((status = 'RETURNED') = (refund_entry_id IS NOT NULL)),
  CHECK ((refund_entry_id IS NULL) = (refunded_usd_micros IS NULL)),
  CHECK (status NOT IN ('FAILED', 'RETURNED') OR reason IS NOT NULL)
);
CREATE INDEX transfer_payouts_due ON transfer_payouts (next_check_at)
  WHERE status IN ('REQUESTED', 'PENDING', 'SENT', 'COMPLETED');

-- The statement bank's side (BANKING_PROVIDER=statement): payouts queued for finance's pain.001
-- export (`payments bank payouts export`), each exported in exactly one batch, confirmed by the
-- statement import: a debit line with its end-to-end id and amount completes it, a credit line
-- naming its end-to-end id returns it (FAILED when it comes back before any debit confirmed it:
-- the money never reached the payee). The creditor's account details are not copied here: the
-- export reads them sealed from the transfer's quote.
CREATE TABLE statement_payout_batches (
  id uuid PRIMARY KEY,
  -- pain.001 GrpHdr/MsgId: unique per file, at most 35 characters.
  message_id text NOT NULL UNIQUE CHECK (length(message_id) <= 35),
  payouts integer NOT NULL CHECK (payouts > 0),
  control_sum numeric(20, 2) NOT NULL,
  -- The file as written, so re-exporting a batch gives the very same bytes.
  document text NOT NULL,
  exported_by text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE statement_bank_payouts (
  payout_id uuid PRIMARY KEY,
  -- pain.001 EndToEndId: what the bank's statement quotes back.
  end_to_end_id text NOT NULL UNIQUE CHECK (length(end_to_end_id) <= 35),
  amount numeric(20, 2) NOT NULL CHECK (amount > 0),
  currency text NOT NULL,
  status text NOT NULL CHECK (status IN ('QUEUED', 'EXPORTED', 'COMPLETED', 'RETURNED', 'FAILED')),
  batch_id uuid REFERENCES statement_payout_batches (id),
  completed_line_id uuid REFERENCES bank_statement_lines (id),
  returned_line_id uuid REFERENCES bank_statement_lines (id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((status = 'QUEUED') = (batch_id IS NULL)),
  CHECK (status NOT IN ('COMPLETED', 'RETURNED') OR completed_line_id IS NOT NULL),
  CHECK ((status IN ('RETURNED', 'FAILED')) = (returned_line_id IS NOT NULL))
);
CREATE INDEX statement_bank_payouts_queued ON statement_bank_payouts (created_at) WHERE status = 'QUEUED';
CREATE INDEX statement_bank_payouts_batch ON statement_bank_payouts (batch_id);

-- A returned payout after completion: the transfer was COMPLETED and becomes REFUNDED. The 0121 list
-- stays as it was, under another name; the triggers call this one by name.
ALTER FUNCTION transfer_transition_allowed(text, text, text) RENAME TO transfer_transition_allowed_0121;
CREATE FUNCTION transfer_transition_allowed(object_type text, from_status text, to_status text)
  RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT transfer_transition_allowed_0121(object_type, from_status, to_status)
      OR (object_type, from_status, to_status) = ('transfer', 'COMPLETED', 'REFUNDED')
$$;

-- A returned payout's refund: what the transfer settled into payout_clearing comes back to the
-- merchant's available balance, its fee given back too (the payee never got the money):
--   transfer_refund  payout_clearing (debit, the paid part) + fee_revenue (debit, the fee)
--                    -> merchant_available (credit, the whole), referenced by the transfer id
-- Added to the kinds already allowed, whatever they are by now (a migration of the same time may
-- add its own), rather than restating the list.
DO $$
DECLARE
  before text;
  after text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'journal_entries'::regclass AND conname = 'journal_entries_kind_check';
  after := replace(before, '::text])', '::text, ''transfer_refund''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'journal_entries_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
  EXECUTE 'ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check ' || after;
END;
$$;
