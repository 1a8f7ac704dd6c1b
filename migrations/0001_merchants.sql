-- Timestamps shown in the API are millisecond-precision RFC 3339 strings; columns are timestamptz(3)
-- so the value stored is exactly the value shown, and a filter using a shown value matches it.
-- Merchants and their derivation account (DESIGN.md: accounts allocated from 0 in creation order).
CREATE TABLE counters (
  name text PRIMARY KEY,
  value bigint NOT NULL
);
INSERT INTO counters (name, value) VALUES ('merchant_derivation_account', 0);

CREATE TABLE merchants (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  derivation_account integer NOT NULL UNIQUE CHECK (derivation_account >= 0),
  -- Next wallet index under this account; indexes are never reused.
  next_wallet_index integer NOT NULL DEFAULT 0,
  fee_bps integer NOT NULL DEFAULT 0 CHECK (fee_bps >= 0 AND fee_bps <= 10000),
  fee_fixed_micros numeric(30, 0) NOT NULL DEFAULT 0 CHECK (fee_fixed_micros >= 0),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
