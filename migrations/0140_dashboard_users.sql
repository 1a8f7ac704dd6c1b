-- People who sign in to the dashboard (issue 16). `admin` is the operator (whole platform, no
-- merchant); the other roles belong to one merchant. Passwords are scrypt hashes in the
-- self-describing form of packages/dashboard/src/password-hash.ts; NULL until the user follows
-- their one-time link. `failed_attempts` counts consecutive failed sign-ins (reset by a success);
-- the 10th locks the account until `locked_until` (packages/dashboard/src/sign-in.ts).
CREATE TABLE dashboard_users (
  id uuid PRIMARY KEY,
  -- Stored lowercased: one account per address whatever case it is typed in.
  email text NOT NULL UNIQUE CHECK (email = lower(email)),
  role text NOT NULL CHECK (role IN ('admin', 'owner', 'developer', 'finance', 'viewer')),
  merchant_id uuid REFERENCES merchants (id),
  password_hash text,
  failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  locked_until timestamptz(3),
  disabled_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((role = 'admin') = (merchant_id IS NULL))
);
CREATE INDEX dashboard_users_merchant ON dashboard_users (merchant_id);
