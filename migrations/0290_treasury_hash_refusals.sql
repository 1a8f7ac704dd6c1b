-- A signed transaction whose hash is already stored for another attempt (treasury_attempts is
-- unique by (chain, tx_hash)) is not stored: the batch or send that signed it is refused for that
-- pass and signed again later (docs/treasury.md, "One attempt per transaction hash"). Each refusal
-- is counted here, per hash, for the operator (/metrics treasury_attempt_hash_refusals) and the
-- tests: a deterministic signer re-signing the same coins to the same outputs at the same tip
-- height after a reorg or refusal meets the stored attempt it failed with.
CREATE TABLE treasury_hash_refusals (
  chain text NOT NULL,
  tx_hash text NOT NULL,
  -- The stored attempt holding the hash, and its state when the refusal was (last) counted.
  attempt_id text NOT NULL REFERENCES treasury_attempts (id),
  attempt_state text NOT NULL,
  -- What signed it: 'sweep' (a sweeper's batch) or 'send' (the send pipeline).
  signed_by text NOT NULL CHECK (signed_by IN ('sweep', 'send')),
  refusals bigint NOT NULL CHECK (refusals > 0),
  first_at timestamptz(3) NOT NULL DEFAULT now(),
  last_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, tx_hash)
);
