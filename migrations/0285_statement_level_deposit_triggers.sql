-- Issue 33: the deposits' per-row triggers become per-statement ones reading the statement's
-- transition tables, as 0240 did for journal_lines and events. Same rows written, in the same
-- transaction and statement; one trigger call per statement instead of one per deposit (the
-- indexer records and confirms deposits in batches of thousands).

-- payment_request_changes: one row per change of a deposit to a request's wallet (0180).
CREATE FUNCTION payment_request_deposits_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_request_changes (request_id)
  SELECT r.id FROM new_deposits n JOIN payment_requests r ON r.wallet_id = n.wallet_id;
  RETURN NULL;
END
$$;

-- An UPDATE trigger with transition tables cannot name columns (UPDATE OF status, hold_status):
-- the old and new rows are compared here instead, as 0180's WHEN clause did.
CREATE FUNCTION payment_request_deposits_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_request_changes (request_id)
  SELECT r.id
    FROM new_deposits n
    JOIN old_deposits o ON o.id = n.id
    JOIN payment_requests r ON r.wallet_id = n.wallet_id
   WHERE o.status IS DISTINCT FROM n.status OR o.hold_status IS DISTINCT FROM n.hold_status;
  RETURN NULL;
END
$$;

DROP TRIGGER deposits_payment_request_inserted ON deposits;
DROP TRIGGER deposits_payment_request_updated ON deposits;
DROP FUNCTION payment_request_deposit_changed();
CREATE TRIGGER deposits_payment_request_inserted AFTER INSERT ON deposits
  REFERENCING NEW TABLE AS new_deposits
  FOR EACH STATEMENT EXECUTE FUNCTION payment_request_deposits_inserted();
CREATE TRIGGER deposits_payment_request_updated AFTER UPDATE ON deposits
  REFERENCING OLD TABLE AS old_deposits NEW TABLE AS new_deposits
  FOR EACH STATEMENT EXECUTE FUNCTION payment_request_deposits_updated();

-- liquidation_drains: a deposit of the address's asset to an active liquidation address (0220).
CREATE FUNCTION liquidation_deposits_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO liquidation_drains (id, liquidation_address_id, merchant_id, deposit_id)
  SELECT gen_random_uuid(), a.id, a.merchant_id, n.id
    FROM new_deposits n
    JOIN liquidation_addresses a
      ON a.destination_id = n.destination_id AND a.asset = n.asset AND a.status = 'active'
  ON CONFLICT (deposit_id) DO NOTHING;
  RETURN NULL;
END
$$;

DROP TRIGGER deposits_liquidation_inserted ON deposits;
DROP FUNCTION liquidation_deposit_seen();
CREATE TRIGGER deposits_liquidation_inserted AFTER INSERT ON deposits
  REFERENCING NEW TABLE AS new_deposits
  FOR EACH STATEMENT EXECUTE FUNCTION liquidation_deposits_seen();
