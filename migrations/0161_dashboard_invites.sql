-- Invitations to a merchant's dashboard (issue 27, finding 7). An invite used to create the user at
-- once and answer 409 naming an email already taken in any tenant, which told a merchant's owner who
-- had an account elsewhere. Now an invite is its own row: the owner gets the same answer (202 and a
-- one-time link) for any email that is not already one of its own users, and the user is created
-- only when the link is used (packages/dashboard/src/invites.ts), if the email is still free; a
-- taken email's link answers as an invalid one. `id` becomes the user's id. Only the SHA-256 of the
-- link's token is stored. `ended_at`: used, or replaced by a newer invite of the same email.
CREATE TABLE dashboard_invites (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  email text NOT NULL CHECK (email = lower(email)),
  role text NOT NULL CHECK (role IN ('owner', 'developer', 'finance', 'viewer')),
  token_hash bytea NOT NULL UNIQUE,
  -- Who invited (the audit log's actor form), recorded again as the user's creator.
  invited_by text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  expires_at timestamptz(3) NOT NULL,
  ended_at timestamptz(3)
);
CREATE INDEX dashboard_invites_open ON dashboard_invites (merchant_id, email) WHERE ended_at IS NULL;
