-- The (top-level, 64-bit) transaction that inserted each destination. A watch set compares it with
-- the snapshot of its last look: rows of transactions still open then, or begun since, are read
-- again, so a wallet whose transaction commits late is never missed however long it stays open
-- (packages/custody/src/watch-set.ts). Rows from before this column count as long settled (0).
ALTER TABLE destinations ADD COLUMN inserted_xid xid8 NOT NULL DEFAULT '0';
ALTER TABLE destinations ALTER COLUMN inserted_xid SET DEFAULT pg_current_xact_id();
CREATE INDEX destinations_chain_inserted_xid ON destinations (chain, inserted_xid);
