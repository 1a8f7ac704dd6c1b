-- Each chain's indexer progress: `indexed_height` is the highest block whose transfers are all in
-- `deposits` (NULL before the first batch), `head_height` the node's latest height at the last look.
-- The cursor only moves in the transaction that writes the scanned range's deposits, so a crash
-- anywhere leaves it at a height whose deposits are fully recorded. GET /v1/chains shows this row.
CREATE TABLE chain_cursors (
  chain text PRIMARY KEY,
  indexed_height bigint,
  head_height bigint,
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
