-- A deposit credited to its merchant's held account instead of available (README "Held deposits"):
-- why it is held, and how an operator resolved it. NULL hold_status: never held.
ALTER TABLE deposits
  ADD COLUMN held_reason text CHECK (held_reason IN ('customer_rejected')),
  ADD COLUMN hold_status text CHECK (hold_status IN ('HELD', 'RELEASED', 'RETURNED')),
  ADD COLUMN hold_resolution_entry_id uuid,
  ADD COLUMN hold_resolved_at timestamptz(3),
  ADD COLUMN return_reason text CHECK (length(return_reason) BETWEEN 1 AND 500),
  ADD CONSTRAINT deposits_hold_reason CHECK ((hold_status IS NULL) = (held_reason IS NULL)),
  ADD CONSTRAINT deposits_hold_resolution CHECK (
    coalesce(hold_status IN ('RELEASED', 'RETURNED'), false) = (hold_resolution_entry_id IS NOT NULL)
    AND (hold_resolution_entry_id IS NULL) = (hold_resolved_at IS NULL)),
  ADD CONSTRAINT deposits_return_reason CHECK (coalesce(hold_status = 'RETURNED', false) = (return_reason IS NOT NULL));
CREATE INDEX deposits_held ON deposits (created_at) WHERE hold_status = 'HELD';
