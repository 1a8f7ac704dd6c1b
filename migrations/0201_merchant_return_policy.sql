-- A merchant's return policy (issue 29, item 2) for money that is the payer's, not the merchant's:
-- 'credit' (the default, today's behaviour: it stays in the merchant's available balance) or
-- 'return' (sent back to the payer). Applied today to crypto payments that reach a transfer's
-- funding address after its intent was funded, canceled or expired (funding_intent_credits outcome
-- LATE): the deposit's credit is taken back from available (net) and fee_revenue (its fee) into
-- returns_payable (entry 'policy_return', the deposit's id as reference) and sent back as a held
-- deposit's return is (deposit_returns, origin 'late_funding').
ALTER TABLE merchants ADD COLUMN return_policy text NOT NULL DEFAULT 'credit'
  CHECK (return_policy IN ('credit', 'return'));

ALTER TABLE deposit_returns ADD COLUMN origin text NOT NULL DEFAULT 'held'
  CHECK (origin IN ('held', 'late_funding'));

DO $$
DECLARE
  before text;
  after text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'journal_entries'::regclass AND conname = 'journal_entries_kind_check';
  after := replace(before, '::text])', '::text, ''policy_return''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'journal_entries_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
  EXECUTE 'ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check ' || after;
END;
$$;
