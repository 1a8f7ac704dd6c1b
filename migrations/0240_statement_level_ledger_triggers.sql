-- Issue 33: the per-row triggers on journal_lines and events become per-statement ones reading the
-- statement's transition table. Same effects, same transaction, same statement; only fewer of them.
--
-- journal_lines -> account_balances: a row trigger ran one UPDATE per line, so a chunk of 500
-- deposit credits (1,500 lines on a handful of accounts) rewrote the same few balance rows 1,500
-- times in one transaction, each rewrite walking the row's growing chain of versions. Now one UPDATE
-- per statement moves each account touched by the sum of its lines. An account without a balance
-- row is still refused (foreign_key_violation), as before.
CREATE FUNCTION journal_lines_apply_to_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  touched integer;
  moved integer;
BEGIN
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

DROP TRIGGER journal_lines_apply_to_balance ON journal_lines;
CREATE TRIGGER journal_lines_apply_to_balances AFTER INSERT ON journal_lines
  REFERENCING NEW TABLE AS new_lines
  FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_apply_to_balances();
DROP FUNCTION journal_line_apply_to_balance();

-- A line's deferred balance check is the entry's own when the entry was inserted in the same
-- transaction: journal_entries_balanced checks it at commit already. Only a line added later to an
-- entry committed before (which the check then refuses) needs its own. The entry's xmin names the
-- transaction (or subtransaction) that inserted it.
CREATE OR REPLACE FUNCTION journal_lines_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (
    SELECT 1 FROM journal_entries e
     WHERE e.id = NEW.entry_id
       AND e.xmin::text::bigint = (pg_current_xact_id()::text::bigint % 4294967296)
  ) THEN
    RETURN NULL;
  END IF;
  PERFORM journal_entry_assert_balanced(NEW.entry_id);
  RETURN NULL;
END;
$$;

-- events -> webhook_deliveries: one INSERT per statement for all its events (the indexer appends a
-- chunk's events in one), one notification.
CREATE OR REPLACE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, event_type)
  SELECT gen_random_uuid(), n.merchant_id, e.id, n.id, n.type
    FROM new_events n
    JOIN webhook_endpoints e ON e.merchant_id = n.merchant_id
   WHERE e.status = 'enabled'
     AND (e.enabled_events @> ARRAY['*'] OR e.enabled_events @> ARRAY[n.type]);
  IF FOUND THEN
    PERFORM pg_notify('webhook_deliveries', '');
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER events_webhook_fan_out ON events;
CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_fan_out();
