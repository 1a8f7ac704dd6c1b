-- Signing secrets of webhook endpoints, AES-256-GCM sealed (packages/encryption) with the row id as
-- associated data, so `keys rotate-encryption` re-seals them like KYC payloads. An endpoint has one
-- current secret (expires_at NULL); a rotation gives the previous one an expiry 24 h ahead, and until
-- then every delivery carries a signature under each.
CREATE TABLE webhook_endpoint_secrets (
  id uuid PRIMARY KEY,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  secret_ciphertext bytea NOT NULL,
  secret_key_id text NOT NULL,
  expires_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoint_secrets_endpoint ON webhook_endpoint_secrets (endpoint_id);
CREATE INDEX webhook_endpoint_secrets_key_id ON webhook_endpoint_secrets (secret_key_id);
CREATE UNIQUE INDEX webhook_endpoint_secrets_one_current ON webhook_endpoint_secrets (endpoint_id)
  WHERE expires_at IS NULL;
