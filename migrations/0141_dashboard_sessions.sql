-- Dashboard sessions. The cookie carries 32 random bytes; only their SHA-256 is stored, so a copy of
-- this table signs nobody in. `csrf_token` is the per-session token every write must echo in the
-- X-CSRF-Token header. Deleting a user's rows signs them out everywhere.
CREATE TABLE dashboard_sessions (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES dashboard_users (id),
  csrf_token text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
