-- Issue 33: the merchant of journal_entries and events is checked once per INSERT statement instead
-- of by a row-level RI trigger per row (a confirm-and-credit batch of 2,000 deposits ran 4,000 of
-- them, each locking its merchant's row again). Same guarantees as the foreign keys they replace:
-- - an insert naming no merchant fails in the same statement with the same SQLSTATE
--   (foreign_key_violation);
-- - the statement locks its distinct merchants FOR KEY SHARE, as the RI triggers locked each row's,
--   so a concurrent DELETE of one of them (or a change of its id) waits for the inserting
--   transaction and then sees its rows;
-- - merchants refuse a DELETE, a change of id or a TRUNCATE while an entry or event names them.
ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_merchant_id_fkey;
ALTER TABLE events DROP CONSTRAINT events_merchant_id_fkey;

CREATE FUNCTION merchant_references_exist() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  wanted integer;
  found integer;
  orphan uuid;
BEGIN
  SELECT count(DISTINCT merchant_id) INTO wanted FROM new_rows;
  IF wanted = 0 THEN
    RETURN NULL;
  END IF;
  -- FOR KEY SHARE cannot be combined with an aggregate: lock in a subquery, count outside it.
  SELECT count(*) INTO found FROM (
    SELECT m.id FROM merchants m WHERE m.id IN (SELECT merchant_id FROM new_rows) FOR KEY SHARE OF m
  ) locked;
  IF found <> wanted THEN
    SELECT n.merchant_id INTO orphan FROM new_rows n
     WHERE n.merchant_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM merchants m WHERE m.id = n.merchant_id)
     LIMIT 1;
    RAISE EXCEPTION 'insert into %: merchant % does not exist', TG_TABLE_NAME, orphan
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER journal_entries_merchant_exists AFTER INSERT ON journal_entries
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION merchant_references_exist();
CREATE TRIGGER events_merchant_exists AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION merchant_references_exist();

-- The other half of the foreign keys. Runs once the row's lock is taken, so an inserting transaction
-- holding FOR KEY SHARE on the merchant has committed (or rolled back) by then, and at READ COMMITTED
-- (the service's level) each query here sees its rows.
CREATE FUNCTION merchant_unreferenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    IF EXISTS (SELECT 1 FROM journal_entries WHERE merchant_id IS NOT NULL)
       OR EXISTS (SELECT 1 FROM events) THEN
      RAISE EXCEPTION 'merchants cannot be truncated while journal entries or events name them'
        USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
    RETURN NEW;
  END IF;
  IF EXISTS (SELECT 1 FROM journal_entries WHERE merchant_id = OLD.id)
     OR EXISTS (SELECT 1 FROM events WHERE merchant_id = OLD.id) THEN
    RAISE EXCEPTION 'merchant % is still named by journal entries or events', OLD.id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER merchants_unreferenced BEFORE DELETE OR UPDATE OF id ON merchants
  FOR EACH ROW EXECUTE FUNCTION merchant_unreferenced();
CREATE TRIGGER merchants_unreferenced_truncate BEFORE TRUNCATE ON merchants
  FOR EACH STATEMENT EXECUTE FUNCTION merchant_unreferenced();
