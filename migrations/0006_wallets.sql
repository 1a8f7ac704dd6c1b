CREATE TABLE wallets (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  label text NOT NULL,
  derivation_index integer NOT NULL CHECK (derivation_index >= 0),
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED')),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (merchant_id, derivation_index)
);
CREATE INDEX wallets_merchant_created ON wallets (merchant_id, created_at DESC, id DESC);
CREATE INDEX wallets_customer ON wallets (customer_id);

-- One receive address per chain per wallet. `address_key` is the matching form (EVM lowercased);
-- `seq` orders rows by insertion so indexers can load only what is new since their last look.
CREATE TABLE destinations (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  wallet_id uuid NOT NULL REFERENCES wallets (id),
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  chain text NOT NULL,
  address text NOT NULL,
  address_key text NOT NULL,
  derivation_path text NOT NULL,
  status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'FAILED', 'DISABLED')),
  failure_reason text,
  last_attempted_at timestamptz(3),
  provisioned_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (wallet_id, chain),
  UNIQUE (chain, address_key)
);
CREATE INDEX destinations_merchant ON destinations (merchant_id);
