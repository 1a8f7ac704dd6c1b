-- The chain's head when an attempt was (last) broadcast: the send pipeline replaces an attempt that
-- stays unmined `stuckAfterBlocks` past it. Stored, not kept in memory, so a signer that restarts
-- does not wait the whole window again, nor replace at once what it broadcast a moment ago.
ALTER TABLE treasury_attempts ADD COLUMN broadcast_height bigint;
