-- One row per (merchant, X-Idempotency-Key). The row is inserted in the same transaction as the
-- operation's writes and holds its response, so an operation and its recorded answer commit or
-- vanish together; a concurrent duplicate waits on the row lock and then replays.
CREATE TABLE idempotency_keys (
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  key text NOT NULL,
  request_hash text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  response_status integer NOT NULL,
  -- text, not jsonb: a replay must return the first body byte for byte (jsonb reorders keys).
  response_body text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (merchant_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
