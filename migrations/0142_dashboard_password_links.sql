-- One-time links to set a dashboard password (`payments users create` without --password-file).
-- Only the SHA-256 of the link's token is stored; `used_at` makes it single-use, `expires_at` short-lived.
CREATE TABLE dashboard_password_links (
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES dashboard_users (id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL,
  used_at timestamptz(3)
);
CREATE INDEX dashboard_password_links_user ON dashboard_password_links (user_id);
