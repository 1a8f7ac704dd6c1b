-- Issue 33: the journal's balance check at COMMIT runs once per transaction over every entry the
-- transaction wrote or added lines to, instead of once per entry and once per line (0011's deferred
-- row triggers queued 8,000 trigger events for a batch of 2,000 deposit credits, each one a function
-- call and two queries at COMMIT). The invariant is the same: at COMMIT (or at SET CONSTRAINTS
-- ... IMMEDIATE) every entry inserted by the transaction, and every entry that got a line in it,
-- has two or more lines and balances in each currency; otherwise the transaction fails with
-- check_violation and the same messages as before.
--
-- How: a statement-level trigger on each of journal_entries and journal_lines writes one row per
-- statement to journal_unchecked (the transaction's id and the statement's entry ids). A deferred
-- constraint trigger on that table fires at COMMIT once per such row; the first firing takes (deletes)
-- every row of the transaction and checks all their entries in two set-based queries, the later
-- firings find nothing left and return. The table is empty outside of running transactions: its
-- rows are deleted before COMMIT, or vanish with a rollback (a rolled-back savepoint's rows and
-- trigger events vanish with it).
CREATE TABLE journal_unchecked (
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  entry_ids uuid[] NOT NULL
);
CREATE INDEX journal_unchecked_xid ON journal_unchecked (xid);

CREATE FUNCTION journal_entries_unchecked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journal_unchecked (entry_ids) SELECT array_agg(id) FROM new_entries HAVING count(*) > 0;
  RETURN NULL;
END;
$$;

CREATE FUNCTION journal_lines_unchecked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO journal_unchecked (entry_ids) SELECT array_agg(DISTINCT entry_id) FROM new_lines HAVING count(*) > 0;
  RETURN NULL;
END;
$$;

CREATE FUNCTION journal_unchecked_assert_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
  bad_entry uuid;
  bad_currency text;
BEGIN
  WITH taken AS (DELETE FROM journal_unchecked WHERE xid = NEW.xid RETURNING entry_ids)
  SELECT array_agg(DISTINCT id) INTO ids FROM taken, unnest(taken.entry_ids) AS id;
  -- An earlier firing of this transaction took every row: its entries are checked already.
  IF ids IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT i.id INTO bad_entry
    FROM unnest(ids) AS i(id) LEFT JOIN journal_lines l ON l.entry_id = i.id
   GROUP BY i.id HAVING count(l.entry_id) < 2 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'journal entry % has fewer than two lines', bad_entry USING ERRCODE = 'check_violation';
  END IF;
  SELECT l.entry_id, l.currency INTO bad_entry, bad_currency
    FROM journal_lines l WHERE l.entry_id = ANY(ids)
   GROUP BY l.entry_id, l.currency
  HAVING sum(CASE l.side WHEN 'debit' THEN l.amount ELSE -l.amount END) <> 0 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'journal entry % does not balance in %', bad_entry, bad_currency USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END;
$$;

CREATE CONSTRAINT TRIGGER journal_unchecked_balanced AFTER INSERT ON journal_unchecked
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_unchecked_assert_balanced();

CREATE TRIGGER journal_entries_unchecked AFTER INSERT ON journal_entries
  REFERENCING NEW TABLE AS new_entries
  FOR EACH STATEMENT EXECUTE FUNCTION journal_entries_unchecked();
CREATE TRIGGER journal_lines_unchecked AFTER INSERT ON journal_lines
  REFERENCING NEW TABLE AS new_lines
  FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_unchecked();

DROP TRIGGER journal_entries_balanced ON journal_entries;
DROP TRIGGER journal_lines_balanced ON journal_lines;
DROP FUNCTION journal_entries_check_balanced();
DROP FUNCTION journal_lines_check_balanced();
