-- Fan-out: every appended event gets one delivery per enabled endpoint of its merchant that wants its
-- type, inserted by the same INSERT, so in the same transaction as the event and the change it
-- describes. Chosen over a dispatcher reading events.seq with a cursor: seq values are taken before
-- commit, so a cursor passing seq N can skip an N-1 still in flight (the outbox gap problem), and
-- closing that gap needs transaction-id visibility checks or a lag window. With the trigger there is
-- nothing to lose: a delivery exists exactly when its event committed. The cost is one indexed
-- INSERT ... SELECT per event in the writer's transaction (nothing when the merchant has no endpoint).
-- NOTIFY wakes the workers at commit (PostgreSQL folds repeated notifications of one transaction).
CREATE FUNCTION webhook_fan_out() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (id, merchant_id, endpoint_id, event_id, event_type)
  SELECT gen_random_uuid(), NEW.merchant_id, e.id, NEW.id, NEW.type
    FROM webhook_endpoints e
   WHERE e.merchant_id = NEW.merchant_id
     AND e.status = 'enabled'
     AND (e.enabled_events @> ARRAY['*'] OR e.enabled_events @> ARRAY[NEW.type]);
  IF FOUND THEN
    PERFORM pg_notify('webhook_deliveries', '');
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER events_webhook_fan_out AFTER INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION webhook_fan_out();
