-- The sandbox faucet's outbox: POST /v1/sandbox/deposits writes a row (and its job) in the request's
-- transaction; a worker sends after commit and records the transaction hash. QUEUED -> SENDING
-- (committed before the faucet is called) -> SUBMITTED; a retry that finds SENDING (a crash during
-- the send) marks it FAILED instead of sending twice; FAILED also when retries run out.
CREATE TABLE sandbox_faucet_sends (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  wallet_id uuid NOT NULL REFERENCES wallets (id),
  destination_id uuid NOT NULL REFERENCES destinations (id),
  chain text NOT NULL,
  address text NOT NULL,
  asset text NOT NULL,
  amount text NOT NULL,
  amount_raw numeric(78, 0) NOT NULL CHECK (amount_raw > 0),
  status text NOT NULL DEFAULT 'QUEUED' CHECK (status IN ('QUEUED', 'SENDING', 'SUBMITTED', 'FAILED')),
  tx_hash text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((status = 'SUBMITTED') = (tx_hash IS NOT NULL))
);
CREATE INDEX sandbox_faucet_sends_merchant ON sandbox_faucet_sends (merchant_id, created_at DESC);
