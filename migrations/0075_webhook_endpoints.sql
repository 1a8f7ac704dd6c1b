-- Webhook endpoints (issue 13): where a merchant wants its events pushed. The signing secrets live in
-- webhook_endpoint_secrets (0076), sealed at rest.
CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  url text NOT NULL,
  description text,
  -- Event types from packages/events EVENT_TYPES, or '*' for every type.
  enabled_events text[] NOT NULL CHECK (cardinality(enabled_events) >= 1),
  status text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  -- Why it is disabled: the merchant asked, the receiver answered 410 Gone, or it failed for 5 days.
  disabled_reason text CHECK (disabled_reason IN ('manual', 'gone', 'failing')),
  disabled_at timestamptz(3),
  -- Start of the current run of failed attempts (NULL after any success): 5 days of it disables.
  failing_since timestamptz(3),
  -- Bumped at every rotation, so a worker's cache of opened secrets knows when to reload.
  secret_version integer NOT NULL DEFAULT 1,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL))
);
CREATE INDEX webhook_endpoints_merchant_created ON webhook_endpoints (merchant_id, created_at DESC, id DESC);
-- The fan-out trigger's lookup: the merchant's enabled endpoints.
CREATE INDEX webhook_endpoints_enabled ON webhook_endpoints (merchant_id) WHERE status = 'enabled';
