-- True while the holder's session holds its liveness lock: a session advisory lock (first key
-- 7245022, second hashtext(holder)) taken by the holder's dedicated connection. A process killed
-- (kill -9) closes its socket, the server ends the session at once and the lock goes with it, so a
-- standby may take the holder's leases within its poll interval instead of waiting for expiry.
-- A hung process keeps its session (and this lock): there the lease's expiry is what bounds it.
-- On the embedded database every connection shares one session that never ends: the lock of a
-- process that died stays, and only expiry frees its leases (the embedded database is single-host).
CREATE FUNCTION lease_holder_alive(holder text) RETURNS boolean
LANGUAGE sql VOLATILE AS $$
  SELECT EXISTS (
    SELECT 1 FROM pg_locks
     WHERE locktype = 'advisory' AND classid = 7245022::oid AND objid = hashtext(holder)::oid
       AND objsubid = 2 AND granted
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
$$;
