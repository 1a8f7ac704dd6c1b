-- Returns on chain (issue 29, item 1): a returned deposit's money goes back to its payer through the
-- treasury's send pipeline (purpose 'return', one send per deposit: its idempotency key is
-- 'deposit-return:<deposit id>'). One row per returned deposit:
--   payable   owed (returns_payable), nothing sent: a Bitcoin deposit waiting for the operator's refund
--             address, a return smaller than its fee (reason says so), or a send that failed
--   sending   the treasury's send is queued or under way (send_key)
--   returned  the send is confirmed: returns_payable -> payout_clearing (entry 'deposit_return', the
--             deposit's id as reference), the deposit's `deposit.return_sent` event
ALTER TABLE treasury_sends DROP CONSTRAINT treasury_sends_purpose_check;
ALTER TABLE treasury_sends ADD CONSTRAINT treasury_sends_purpose_check
  CHECK (purpose IN ('operator', 'top_up', 'transfer', 'sweep', 'return'));

CREATE TABLE deposit_returns (
  deposit_id uuid PRIMARY KEY REFERENCES deposits (id),
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  chain text NOT NULL,
  asset text NOT NULL,
  -- Where the money goes: the deposit's sender, or the operator's refund address (Bitcoin); null
  -- while a Bitcoin return waits for one.
  to_address text,
  -- What the payer gets (the deposit's amount less fee_raw) and the network fee taken from it.
  amount_raw numeric(78, 0) CHECK (amount_raw > 0),
  fee_raw numeric(78, 0) NOT NULL CHECK (fee_raw >= 0),
  -- What returns_payable owes for it: the deposit's gross USD value.
  owed_usd_micros numeric(30, 0) NOT NULL CHECK (owed_usd_micros >= 0),
  state text NOT NULL CHECK (state IN ('payable', 'sending', 'returned')),
  reason text,
  -- The send of the current attempt: 'deposit-return:<deposit id>' for the first, '#<n>' appended
  -- for the n-th after a failed one (nothing left the treasury but a fee).
  attempt integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
  send_key text UNIQUE,
  entry_id uuid,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  returned_at timestamptz(3),
  CHECK ((state = 'sending') <= (send_key IS NOT NULL AND amount_raw IS NOT NULL AND to_address IS NOT NULL)),
  CHECK ((state = 'returned') = (entry_id IS NOT NULL))
);
CREATE INDEX deposit_returns_sending ON deposit_returns (created_at) WHERE state = 'sending';

DO $$
DECLARE
  before text;
  after text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'journal_entries'::regclass AND conname = 'journal_entries_kind_check';
  after := replace(before, '::text])', '::text, ''deposit_return''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'journal_entries_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
  EXECUTE 'ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check ' || after;
END;
$$;

-- A return's destination is screened like any payment we make (docs/sanctions.md).
ALTER TABLE sanctions_matches DROP CONSTRAINT sanctions_matches_context_check;
ALTER TABLE sanctions_matches ADD CONSTRAINT sanctions_matches_context_check
  CHECK (context IN ('deposit', 'quote', 'payout', 'treasury_send', 'return'));
