-- Hashes of the blocks the indexer has processed in the unconfirmed window (pruned below the cursor
-- minus twice the required confirmations). Reorg detection compares them with the node: the first
-- stored height whose hash still matches is the common ancestor to roll back to.
CREATE TABLE chain_blocks (
  chain text NOT NULL,
  height bigint NOT NULL,
  hash text NOT NULL,
  parent_hash text NOT NULL,
  PRIMARY KEY (chain, height)
);
