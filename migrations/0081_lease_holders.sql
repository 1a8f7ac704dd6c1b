-- The processes that hold or wait for leases (issue 19), one row each, renewed with their leases:
-- who they are (host, pid: GET /v1/chains shows them) and what they want, so that N processes share
-- the resources fairly (packages/db/src/lease-keeper.ts). A row whose expires_at passed is a process
-- that stopped renewing; it is deleted an hour later.
CREATE TABLE lease_holders (
  -- host:pid:random, also the key of the holder's liveness lock (0082).
  id text PRIMARY KEY,
  -- What the process competes for ("indexer"): shares are counted within a role.
  role text NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  -- Lease names the process would hold (its --chains), for the fair share.
  wants text[] NOT NULL,
  started_at timestamptz(3) NOT NULL,
  expires_at timestamptz(3) NOT NULL
);
CREATE INDEX lease_holders_role ON lease_holders (role, expires_at);
