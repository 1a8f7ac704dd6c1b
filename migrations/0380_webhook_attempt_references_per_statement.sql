-- Issue 33 item 4: a webhook attempt's delivery (and endpoint) is checked once per INSERT statement
-- instead of by two row-level RI triggers per attempt. The result writer inserts a batch of attempts
-- per statement; each RI check was an SPI query that also locked its delivery row again, together
-- about as much as the rest of the insert (measured: 60,000 attempts in batches of 200, 2.3-2.5 s
-- without the two foreign keys, 4.6 s with them, 2.3-3.9 s with this per-statement check).
-- Same guarantees as the foreign keys they replace (as 0330 did for the merchant of entries/events):
-- - an attempt naming no delivery fails in the same statement with the same SQLSTATE
--   (foreign_key_violation); so does one whose endpoint is not its delivery's (stricter than before:
--   the endpoint used to be checked only to exist, and it exists whenever its delivery does);
-- - the statement locks its deliveries FOR KEY SHARE, as the RI triggers locked each row's, so a
--   concurrent DELETE of one waits for the inserting transaction and then sees its attempts;
-- - deleting a delivery deletes its attempts (was ON DELETE CASCADE; deleting an endpoint or pruning
--   an event deletes its deliveries by their own foreign keys, and so their attempts), once per
--   statement; a change of a delivery's id is refused while attempts name it; a TRUNCATE of the
--   deliveries empties the attempts too.
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_delivery_id_fkey;
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_endpoint_id_fkey;

CREATE FUNCTION webhook_attempt_deliveries_exist() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  wanted integer;
  found integer;
  orphan uuid;
BEGIN
  SELECT count(DISTINCT (delivery_id, endpoint_id)) INTO wanted FROM new_rows;
  IF wanted = 0 THEN
    RETURN NULL;
  END IF;
  -- FOR KEY SHARE cannot be combined with an aggregate: lock in a subquery, count outside it.
  SELECT count(*) INTO found FROM (
    SELECT d.id FROM webhook_deliveries d
     WHERE (d.id, d.endpoint_id) IN (SELECT delivery_id, endpoint_id FROM new_rows)
       FOR KEY SHARE OF d
  ) locked;
  IF found <> wanted THEN
    SELECT n.delivery_id INTO orphan FROM new_rows n
     WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = n.delivery_id AND d.endpoint_id = n.endpoint_id)
     LIMIT 1;
    RAISE EXCEPTION 'insert into webhook_delivery_attempts: delivery % of that endpoint does not exist', orphan
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER webhook_delivery_attempts_delivery_exists AFTER INSERT ON webhook_delivery_attempts
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_attempt_deliveries_exist();

-- A delivery's id and endpoint never change; refused while attempts name them, as the keys did. A
-- row trigger on those columns only: the worker's updates never set them, so never run it.
CREATE FUNCTION webhook_attempt_references_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_delivery_attempts WHERE delivery_id = OLD.id) THEN
    RAISE EXCEPTION 'webhook delivery %: its id or endpoint cannot change while attempts name it', OLD.id
      USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER webhook_deliveries_attempt_references_kept BEFORE UPDATE OF id, endpoint_id ON webhook_deliveries
  FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.endpoint_id IS DISTINCT FROM NEW.endpoint_id)
  EXECUTE FUNCTION webhook_attempt_references_kept();

-- The cascade. Runs after the deliveries' row locks are taken, so a transaction inserting attempts
-- (holding FOR KEY SHARE on their delivery) has committed by then, and at READ COMMITTED (the
-- service's level) this statement sees its attempts. No index on delivery_id: one hash join per
-- statement over the attempts, where the foreign key ran one scan per delivery.
CREATE FUNCTION webhook_deliveries_delete_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM webhook_delivery_attempts;
    RETURN NULL;
  END IF;
  DELETE FROM webhook_delivery_attempts a USING old_rows o WHERE a.delivery_id = o.id;
  RETURN NULL;
END;
$$;

CREATE TRIGGER webhook_deliveries_delete_attempts AFTER DELETE ON webhook_deliveries
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_delete_attempts();
CREATE TRIGGER webhook_deliveries_truncate_attempts BEFORE TRUNCATE ON webhook_deliveries
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_delete_attempts();
