-- A transfer seen on chain to one of our receive addresses. Its identity is (chain, tx_hash,
-- position): a rescan of the same block can never insert it twice.
CREATE TABLE deposits (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  wallet_id uuid NOT NULL REFERENCES wallets (id),
  destination_id uuid NOT NULL REFERENCES destinations (id),
  customer_id uuid REFERENCES customers (id),
  chain text NOT NULL,
  asset text NOT NULL,
  contract_address text,
  from_address text,
  to_address text NOT NULL,
  tx_hash text NOT NULL,
  position text NOT NULL,
  block_height bigint NOT NULL,
  block_hash text NOT NULL,
  decimals integer NOT NULL,
  amount_raw numeric(78, 0) NOT NULL CHECK (amount_raw > 0),
  -- Required confirmations at the time the deposit was seen (the chain's setting then).
  required_confirmations integer NOT NULL,
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'CONFIRMED', 'REVERSED')),
  -- USD valuation, fixed at confirmation: rate (USD per whole unit) and when it was taken.
  usd_rate text,
  usd_rate_at timestamptz(3),
  amount_usd_micros numeric(30, 0),
  fee_usd_micros numeric(30, 0),
  net_amount_usd_micros numeric(30, 0),
  credit_entry_id uuid,
  reversal_entry_id uuid,
  confirmed_at timestamptz(3),
  reversed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (chain, tx_hash, position)
);
CREATE INDEX deposits_merchant_created ON deposits (merchant_id, created_at DESC, id DESC);
CREATE INDEX deposits_pending ON deposits (chain, block_height) WHERE status = 'PENDING';
CREATE INDEX deposits_tx ON deposits (tx_hash);
CREATE INDEX deposits_wallet ON deposits (wallet_id);
