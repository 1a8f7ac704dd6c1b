-- Fees follow the money's purpose (issue 27, finding 3). A deposit to a transfer's funding address
-- is credited by the indexer like any deposit, the merchant's deposit fee included, and its net is
-- reserved by the hold `funding-deposit:<deposit id>` until the transfer executor has said what the
-- money is (packages/ledger/src/funding-deposits.ts). The part an open intent takes then gets its
-- share of the fee back:
--   funding_fee_refund  fee_revenue (debit) -> merchant_available (credit), referenced by the deposit id
-- and the deposit's fee_usd_micros / net_amount_usd_micros become the fee it finally paid (that of
-- the part no intent took). Late money, an excess, another asset keep the fee like any deposit.
-- Added to the kinds already allowed, whatever they are by now (as migrations/0127 does).
DO $$
DECLARE
  before text;
  after text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'journal_entries'::regclass AND conname = 'journal_entries_kind_check';
  after := replace(before, '::text])', '::text, ''funding_fee_refund''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'journal_entries_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
  EXECUTE 'ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check ' || after;
END;
$$;

-- The refund an applied chain deposit got (its entry and amount), recorded on the credit that
-- applied it: `ledger check` ties each funding_fee_refund entry to exactly one applied credit.
ALTER TABLE funding_intent_credits
  ADD COLUMN fee_refund_usd_micros numeric(30, 0) CHECK (fee_refund_usd_micros > 0),
  ADD COLUMN fee_refund_entry_id uuid UNIQUE REFERENCES journal_entries (id),
  ADD CONSTRAINT funding_intent_credits_fee_refund
    CHECK ((fee_refund_entry_id IS NULL) = (fee_refund_usd_micros IS NULL)
           AND (fee_refund_entry_id IS NULL OR (deposit_id IS NOT NULL AND applied_amount > 0)));
