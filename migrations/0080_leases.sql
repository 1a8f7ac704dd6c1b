-- Leadership of a named resource ("indexer:BASE"; the treasury's senders will add theirs): one row
-- per resource, held by one process at a time (issue 19). Judged only by the database's clock
-- (clock_timestamp() in SQL, never a host's): the holder renews expires_at; anyone may take a row
-- whose expires_at has passed, or whose holder's session is gone (lease_holder_alive, 0082), and
-- taking it bumps epoch. Every write made under a lease first checks, in its own transaction, that
-- (holder, epoch) still holds the row unexpired (packages/db/src/leases.ts: assertLeader), so a
-- deposed holder that wakes up writes nothing.
-- A general `name` rather than a `chain` column: the same rows and guard serve the treasury.
CREATE TABLE leases (
  name text PRIMARY KEY,
  -- lease_holders.id of the process holding it: host:pid:random.
  holder text NOT NULL,
  -- Fencing token: bumped at every change of holder (and at a holder's return after expiry).
  epoch bigint NOT NULL CHECK (epoch >= 1),
  -- Since when this holder holds it (the current epoch's start).
  acquired_at timestamptz(3) NOT NULL,
  renewed_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL
);
