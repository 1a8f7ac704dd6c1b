-- One delivery per (event, endpoint) to send, and one attempt row per HTTP request made for it.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  -- NULL for a test delivery (POST /v1/webhook-endpoints/{id}/test), which has no event.
  -- Pruned with its event (packages/events pruneEvents: no delivery is retried 30 days on).
  event_id uuid REFERENCES events (id) ON DELETE CASCADE,
  event_type text NOT NULL,
  -- pending: to send (or being sent); succeeded: a 2xx; failed: out of attempts or 410;
  -- canceled: its endpoint was disabled before it went out.
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  -- Attempts claimed so far; also the claim's fence: a result is written only by the claim that
  -- counted this attempt.
  attempts integer NOT NULL DEFAULT 0,
  -- When it is next due.
  next_attempt_at timestamptz(3) NOT NULL DEFAULT now(),
  -- While an attempt runs, the end of its lease: a worker killed mid-delivery leaves the delivery due
  -- again then, so it is retried, never lost. Kept out of every index, so that the claim's update can
  -- stay on its page (HOT) and leaves no index entry behind for the next claims to step over.
  claimed_until timestamptz(3),
  last_status_code integer,
  last_error text,
  completed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now()
) WITH (
  fillfactor = 70,
  -- A queue: every delivery's completion leaves a dead entry in the claim's index until a vacuum, and
  -- the claim steps over those. Vacuum it after 1,000 changes, not after a fifth of the table.
  autovacuum_vacuum_scale_factor = 0,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_cost_delay = 0
);
-- The worker's claim: each endpoint's due pending deliveries, oldest first (and what a disable cancels).
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE TABLE webhook_delivery_attempts (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  attempted_at timestamptz(3) NOT NULL,
  -- NULL when no HTTP answer came (refused address, connection error, timeout).
  status_code integer,
  latency_ms integer NOT NULL,
  error text,
  -- The receiver's answer, truncated to 1 KiB.
  response_body text,
  succeeded boolean NOT NULL
);
CREATE INDEX webhook_delivery_attempts_endpoint ON webhook_delivery_attempts (endpoint_id, attempted_at DESC, id DESC);
