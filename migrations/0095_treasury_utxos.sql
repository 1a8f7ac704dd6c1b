-- The Bitcoin treasury's coins (issue 14). The indexer watches the treasury's addresses (receive and
-- change, treasury_addresses) and records every output paying one here instead of as a deposit; the
-- Bitcoin sender also records its own change output when its attempt is mined (both writes are
-- idempotent and agree). Coin selection takes only confirmed, unreserved rows.
CREATE TABLE treasury_utxos (
  chain text NOT NULL,
  txid text NOT NULL,
  vout integer NOT NULL CHECK (vout >= 0),
  address text NOT NULL,
  amount_raw numeric(78, 0) NOT NULL CHECK (amount_raw > 0),
  -- 'indexer': seen in a block paying a treasury address (an operator top-up, a sweep); 'change': our
  -- own change output, recorded by the sender when the attempt that created it was mined.
  source text NOT NULL CHECK (source IN ('indexer', 'change')),
  -- The block holding it; NULL while a reorg has taken that block away (the indexer's rollback), until
  -- a rescan or the sender sees it mined again. A coin without a block is never selected.
  block_height bigint,
  block_hash text,
  -- The replay guard: the tx hash of the attempt that took this coin as an input, set in the sign
  -- transaction (treasury_attempts.guard lists the same inputs). Replacements (RBF) spend the same
  -- inputs and keep the first attempt's reservation. Freed only when every attempt spending it has
  -- expired or failed.
  reserved_by text,
  -- The txid that spent it in a block (one of our attempts), while that block is canonical.
  spent_by text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, txid, vout)
);
CREATE INDEX treasury_utxos_free ON treasury_utxos (chain, amount_raw DESC)
  WHERE reserved_by IS NULL AND spent_by IS NULL AND block_height IS NOT NULL;
CREATE INDEX treasury_utxos_reserved ON treasury_utxos (chain, reserved_by) WHERE reserved_by IS NOT NULL;
CREATE INDEX treasury_utxos_spent ON treasury_utxos (chain, spent_by) WHERE spent_by IS NOT NULL;
