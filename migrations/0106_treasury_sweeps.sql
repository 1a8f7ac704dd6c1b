-- Sweeps (issue 14): confirmed deposits gathered from the deposit (receive) addresses into the
-- treasury. A sweep moves custody, not merchant money: no ledger entry is written, the merchants'
-- balances do not change. This table is the custody record `payments reconcile chains` reads to
-- explain every move between deposit addresses and the treasury.
--
-- A sweep's own transaction is a treasury send FROM the deposit address (purpose 'sweep'): it is
-- signed with the deposit key and stored in treasury_attempts (nonce from treasury_nonces for the
-- deposit address) before it is broadcast, and the send pipeline broadcasts, confirms and watches it
-- for reorgs like any other send. The pipeline never signs a 'sweep' send itself (it has no deposit key).
ALTER TABLE treasury_sends DROP CONSTRAINT treasury_sends_purpose_check;
ALTER TABLE treasury_sends ADD CONSTRAINT treasury_sends_purpose_check
  CHECK (purpose IN ('operator', 'top_up', 'transfer', 'sweep'));

CREATE TABLE treasury_sweeps (
  id text PRIMARY KEY,
  chain text NOT NULL,
  -- The asset swept (chain config symbol): a token, or the chain's native coin.
  asset text NOT NULL,
  destination_id uuid NOT NULL REFERENCES destinations (id),
  -- The deposit address as the chain shows it, and its matching form (EVM lowercased).
  deposit_address text NOT NULL,
  deposit_address_key text NOT NULL,
  -- The treasury address it goes to.
  treasury_address text NOT NULL,
  -- Confirmed deposits this sweep accounts for (smallest units of `asset`): the sum of CONFIRMED
  -- deposits at the address minus what earlier sweeps covered.
  covered_raw numeric(78, 0) NOT NULL CHECK (covered_raw > 0),
  -- What the sweep transaction moves to the treasury. Tokens: = covered_raw. Native coin: covered_raw
  -- minus the most the sweep's gas may cost; what the gas did not use stays at the address as dust.
  amount_raw numeric(78, 0) NOT NULL CHECK (amount_raw > 0),
  -- The gas top-up (treasury send, purpose 'top_up', treasury -> deposit address, native coin), when
  -- the address held too little native coin for the sweep's gas; null for native sweeps and when the
  -- address had enough.
  top_up_send_id text REFERENCES treasury_sends (id),
  -- The sweep's own send (purpose 'sweep', deposit address -> treasury), once signed.
  send_id text REFERENCES treasury_sends (id),
  -- The attempt that landed and its hash, once confirmed.
  attempt_id text REFERENCES treasury_attempts (id),
  tx_hash text,
  -- Native coin the sweep transaction paid in gas (gasUsed * effectiveGasPrice), once mined; paid by
  -- the deposit address (from the top-up, or from the native deposit itself).
  fee_paid_raw numeric(78, 0),
  -- topping_up: waiting for the top-up to confirm; ready: gas is there, the sweep is to be signed;
  -- sweeping: signed and stored (the send pipeline broadcasts and confirms it); confirmed; failed
  -- (reason; for a mined but reverted sweep fee_paid_raw is still the gas burnt).
  state text NOT NULL CHECK (state IN ('topping_up', 'ready', 'sweeping', 'confirmed', 'failed')),
  reason text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  confirmed_at timestamptz(3)
);
-- At most one open sweep per address and asset: a second one could only double-count its deposits.
CREATE UNIQUE INDEX treasury_sweeps_open ON treasury_sweeps (chain, deposit_address_key, asset)
  WHERE state IN ('topping_up', 'ready', 'sweeping');
CREATE INDEX treasury_sweeps_chain_state ON treasury_sweeps (chain, state, created_at);
CREATE INDEX treasury_sweeps_destination ON treasury_sweeps (destination_id, asset);
