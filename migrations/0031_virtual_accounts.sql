-- USD virtual accounts (spec 2.4). The full deposit instructions (account number, IBAN, routing,
-- beneficiary) are stored only as AES-256-GCM ciphertext sealed with the row id as associated data;
-- the masked form (last four digits, account type, bank name) is kept in clear for listings.
CREATE TABLE virtual_accounts (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  currency text NOT NULL CHECK (currency = 'USD'),
  status text NOT NULL DEFAULT 'PROVISIONING' CHECK (status IN ('PROVISIONING', 'ACTIVE', 'FAILED')),
  provider_account_id text NOT NULL UNIQUE,
  account_number_last4 text NOT NULL CHECK (account_number_last4 ~ '^[0-9]{4}$'),
  account_type text NOT NULL,
  bank_name text NOT NULL,
  supported_rails jsonb NOT NULL,
  instructions_ciphertext bytea NOT NULL,
  instructions_key_id text NOT NULL,
  failure_reason text,
  -- Guards the job chain that asks the provider for the activation (see verification_submissions).
  provider_checks integer NOT NULL DEFAULT 0,
  activated_at timestamptz(3),
  failed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX virtual_accounts_merchant_created ON virtual_accounts (merchant_id, created_at DESC, id DESC);
CREATE INDEX virtual_accounts_key_id ON virtual_accounts (instructions_key_id);
-- One live account per customer and currency; a FAILED one does not count.
CREATE UNIQUE INDEX virtual_accounts_one_live ON virtual_accounts (customer_id, currency)
  WHERE status IN ('PROVISIONING', 'ACTIVE');
