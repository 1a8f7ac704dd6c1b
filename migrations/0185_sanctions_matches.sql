-- Sanctions screening (docs/sanctions.md). Every match is kept here, append-only: a deposit whose
-- sender a list names (credited to merchant_held, held_reason sanctions_match; one row per deposit),
-- and every refused quote, payout or treasury send to a listed destination (one row per refusal).
CREATE TABLE sanctions_matches (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  context text NOT NULL CHECK (context IN ('deposit', 'quote', 'payout', 'treasury_send')),
  address text NOT NULL,
  list text NOT NULL,
  chain text,
  merchant_id uuid,
  -- The deposit's id, the send's idempotency key; NULL for a refused quote (nothing was stored).
  reference text,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX sanctions_matches_deposit ON sanctions_matches (reference) WHERE context = 'deposit';
CREATE INDEX sanctions_matches_created ON sanctions_matches (created_at);

CREATE FUNCTION sanctions_matches_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'sanctions_matches is append-only' USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER sanctions_matches_append_only BEFORE UPDATE OR DELETE ON sanctions_matches
  FOR EACH ROW EXECUTE FUNCTION sanctions_matches_append_only();

-- A deposit from a sanctioned sender is held for that reason (an operator releases or returns it).
ALTER TABLE deposits DROP CONSTRAINT deposits_held_reason_check;
ALTER TABLE deposits ADD CONSTRAINT deposits_held_reason_check
  CHECK (held_reason IN ('customer_rejected', 'sanctions_match'));
