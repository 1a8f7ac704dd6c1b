-- Deposit identity after reorgs. (chain, tx_hash, position) stays unique among live deposits
-- (PENDING or CONFIRMED), so a rescan never duplicates one. A REVERSED deposit is history: its block
-- left the canonical chain and its credit, if any, was reversed under its own id. When the same
-- transfer is mined again on the new branch it becomes a NEW deposit row (new id, hence a new
-- ledger reference and a credit of its own) instead of reviving the reversed row, whose credit and
-- reversal entries stay paired with it. Several REVERSED rows may share one identity.
ALTER TABLE deposits DROP CONSTRAINT deposits_chain_tx_hash_position_key;
CREATE UNIQUE INDEX deposits_live_identity ON deposits (chain, tx_hash, position) WHERE status <> 'REVERSED';
