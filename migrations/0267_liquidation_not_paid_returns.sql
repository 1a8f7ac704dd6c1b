-- Issue 30, return_address (continued): a drain `not_paid` below_minimum (its deposit credited to the
-- merchant's available balance) of an address with a return_address is owed back there too, and moves
-- not_paid -> refunded when its return is sent; a refunded drain keeps the not_paid_reason that says
-- why it was not paid out (the 0220 rule "not_paid_reason exactly on not_paid", an unnamed CHECK, now
-- admits it on refunded), and needs no transfer when it keeps a failure or not-paid reason.
DO $$
DECLARE
  name text;
BEGIN
  SELECT conname INTO name FROM pg_constraint
   WHERE conrelid = 'liquidation_drains'::regclass AND contype = 'c'
     AND pg_get_constraintdef(oid) LIKE '%not_paid_reason IS NOT NULL%';
  EXECUTE format('ALTER TABLE liquidation_drains DROP CONSTRAINT %I', name);
END
$$;
ALTER TABLE liquidation_drains
  ADD CONSTRAINT liquidation_drains_not_paid_reason CHECK (
    (state <> 'not_paid' OR not_paid_reason IS NOT NULL)
    AND (not_paid_reason IS NULL OR state IN ('not_paid', 'refunded'))
  );

ALTER TABLE liquidation_drains DROP CONSTRAINT liquidation_drains_transfer_made;
ALTER TABLE liquidation_drains
  ADD CONSTRAINT liquidation_drains_transfer_made CHECK (
    state IN ('awaiting_funds', 'not_paid', 'canceled') OR transfer_id IS NOT NULL
    OR (state IN ('failed', 'refunded') AND failure_reason IS NOT NULL)
    OR (state = 'refunded' AND not_paid_reason IS NOT NULL)
  );

CREATE OR REPLACE FUNCTION liquidation_drain_transition_allowed(from_state text, to_state text)
  RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT (from_state, to_state) IN (
    ('awaiting_funds', 'payment_submitted'),
    ('awaiting_funds', 'not_paid'),
    ('awaiting_funds', 'canceled'),
    ('awaiting_funds', 'failed'),
    ('payment_submitted', 'payment_processed'),
    ('payment_submitted', 'failed'),
    ('payment_processed', 'refunded'),
    ('failed', 'refunded'),
    ('not_paid', 'refunded')
  )
$$;
