-- Issue 33: the two foreign keys of journal_lines (its entry; its account in the line's currency)
-- are checked once per statement by the trigger that already moves the balances, instead of by
-- two row-level RI triggers per line (12,000 trigger calls for a batch of 2,000 deposit credits).
-- Same refusal, same statement, same SQLSTATE (foreign_key_violation). The other half of a foreign
-- key, refusing to delete a referenced row, is already the tables' own: journal_entries and
-- ledger_accounts refuse every UPDATE, DELETE and TRUNCATE (ledger_immutable, 0010 and 0011).
ALTER TABLE journal_lines DROP CONSTRAINT journal_lines_entry_id_fkey;
ALTER TABLE journal_lines DROP CONSTRAINT journal_lines_account_id_currency_fkey;

CREATE OR REPLACE FUNCTION journal_lines_apply_to_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched integer;
  moved integer;
  orphan_entry uuid;
  orphan_account uuid;
  orphan_currency text;
BEGIN
  SELECT l.entry_id, l.account_id, l.currency INTO orphan_entry, orphan_account, orphan_currency
    FROM new_lines l
   WHERE NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.id = l.entry_id)
      OR NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.id = l.account_id AND a.currency = l.currency)
   LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'journal line of entry % on account % in %: no such entry, or no such account in that currency',
      orphan_entry, orphan_account, orphan_currency USING ERRCODE = 'foreign_key_violation';
  END IF;
  SELECT count(DISTINCT account_id) INTO touched FROM new_lines;
  WITH delta AS (
    SELECT l.account_id, sum(CASE WHEN l.side = a.normal_side THEN l.amount ELSE -l.amount END) AS amount
      FROM new_lines l JOIN ledger_accounts a ON a.id = l.account_id
     GROUP BY l.account_id
  )
  UPDATE account_balances b
     SET balance = b.balance + delta.amount, updated_at = now()
    FROM delta
   WHERE b.account_id = delta.account_id;
  GET DIAGNOSTICS moved = ROW_COUNT;
  IF moved <> touched THEN
    RAISE EXCEPTION 'a ledger account of the lines inserted has no balance row' USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END;
$$;
