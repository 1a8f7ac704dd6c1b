-- Bank suspense (docs/bank-suspense.md): a USD credit line of a statement that matches no virtual
-- account is money at the bank that is nobody's yet. It is posted at import to the system account
--   bank_suspense  system  credit-normal  liability: received, owner unknown
-- and moved out when finance assigns the line (then credited as any bank deposit) or returns it:
--   bank_suspense_in   bank_clearing (debit: the money is at the bank) -> bank_suspense (credit)
--   bank_suspense_out  the exact opposite, at assignment or return
-- both referenced by the statement line's id.
DO $$
DECLARE
  before text;
  after text;
BEGIN
  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'ledger_accounts'::regclass AND conname = 'ledger_accounts_kind_check';
  after := replace(before, '::text])', '::text, ''bank_suspense''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'ledger_accounts_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
  EXECUTE 'ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check ' || after;

  SELECT pg_get_constraintdef(oid) INTO before FROM pg_constraint
   WHERE conrelid = 'journal_entries'::regclass AND conname = 'journal_entries_kind_check';
  after := replace(before, '::text])', '::text, ''bank_suspense_in''::text, ''bank_suspense_out''::text])');
  IF after IS NULL OR after = before THEN
    RAISE EXCEPTION 'journal_entries_kind_check has an unexpected form: %', before;
  END IF;
  ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
  EXECUTE 'ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check ' || after;
END;
$$;
INSERT INTO ledger_accounts (id, kind, merchant_id, currency, normal_side)
  VALUES (gen_random_uuid(), 'bank_suspense', NULL, 'USD', 'credit');
