-- Events: the outbox of every state change a merchant cares about (issue 13). A row is appended in the
-- same transaction as the change it describes, so an event exists exactly when its change committed.
-- Rows are immutable (no UPDATE path in code); kept at least 30 days (EVENT_RETENTION_DAYS).
CREATE TABLE events (
  id uuid PRIMARY KEY,
  -- Commit-independent order of appends, for delivery cursors and stable listing ties.
  seq bigserial NOT NULL UNIQUE,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  -- `resource.action`, from the one list in packages/events/src/event-types.ts.
  type text NOT NULL,
  object_type text NOT NULL,
  object_id text NOT NULL,
  -- Per-object version, 1 for the first event of an object; the object row's lock serialises them.
  object_version integer NOT NULL CHECK (object_version >= 1),
  -- The object as it is after the change (the API's JSON form).
  data jsonb NOT NULL,
  -- The Idempotency-Key of the request that caused the change, when there was one.
  idempotency_key text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (object_id, object_version)
);
CREATE INDEX events_merchant_created ON events (merchant_id, created_at DESC, id DESC);
CREATE INDEX events_merchant_object ON events (merchant_id, object_id);
