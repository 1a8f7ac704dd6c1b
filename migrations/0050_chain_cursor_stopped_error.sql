-- Why a chain's indexer stopped: set when it met a configuration error it must not retry (the node
-- serves another chain or network, refuses our credentials); cleared when an indexer of the chain
-- next verifies the node. GET /v1/chains shows it.
ALTER TABLE chain_cursors ADD COLUMN stopped_error text, ADD COLUMN stopped_at timestamptz(3);
