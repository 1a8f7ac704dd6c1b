-- API keys are stored only as a SHA-256 hash of the full key (the key has 256 bits of entropy, so
-- a slow hash adds nothing); `prefix` is the readable part shown in listings and used to revoke.
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  prefix text NOT NULL UNIQUE,
  key_hash bytea NOT NULL UNIQUE,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_merchant ON api_keys (merchant_id);
