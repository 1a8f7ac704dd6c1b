-- Holds: money moved from a merchant's available to its reserved balance for a payout in flight,
-- then settled (reserved -> payout_clearing: the payout happened) or released (reserved ->
-- available: it did not). The journal holds the money; this table holds each hold's state, so a
-- settle and a release of the same hold serialise on its row, and `ledger check` can reconcile
-- reserved balances (open holds) and settled payouts against it.
CREATE TABLE ledger_holds (
  id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  amount_usd_micros numeric(30, 0) NOT NULL CHECK (amount_usd_micros > 0),
  status text NOT NULL DEFAULT 'HELD' CHECK (status IN ('HELD', 'SETTLED', 'RELEASED')),
  hold_entry_id uuid NOT NULL UNIQUE REFERENCES journal_entries (id),
  resolution_entry_id uuid UNIQUE REFERENCES journal_entries (id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  resolved_at timestamptz(3),
  CHECK ((status = 'HELD') = (resolution_entry_id IS NULL)),
  CHECK ((status = 'HELD') = (resolved_at IS NULL))
);
CREATE INDEX ledger_holds_merchant_status ON ledger_holds (merchant_id, status);

-- A hold is resolved once: settled or released, never both, never undone; the rest never changes.
CREATE FUNCTION ledger_holds_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'ledger hold % cannot be deleted', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.amount_usd_micros <> OLD.amount_usd_micros
     OR NEW.hold_entry_id <> OLD.hold_entry_id OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'ledger hold % is immutable', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF OLD.status <> 'HELD' AND (NEW.status <> OLD.status
     OR NEW.resolution_entry_id IS DISTINCT FROM OLD.resolution_entry_id
     OR NEW.resolved_at IS DISTINCT FROM OLD.resolved_at) THEN
    RAISE EXCEPTION 'ledger hold % is already %', OLD.id, OLD.status USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER ledger_holds_guard BEFORE UPDATE OR DELETE ON ledger_holds
  FOR EACH ROW EXECUTE FUNCTION ledger_holds_guard();

-- The journal says the same: at most one settle-or-release entry per hold.
CREATE UNIQUE INDEX journal_entries_one_hold_resolution ON journal_entries (reference)
  WHERE kind IN ('hold_settle', 'hold_release');
