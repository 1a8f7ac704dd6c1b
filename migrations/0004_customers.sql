CREATE TABLE customers (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  type text NOT NULL CHECK (type IN ('INDIVIDUAL', 'BUSINESS')),
  first_name text,
  last_name text,
  business_name text,
  email text,
  external_reference text,
  status text NOT NULL DEFAULT 'PROVISIONING'
    CHECK (status IN ('PROVISIONING', 'NOT_STARTED', 'UNDER_REVIEW', 'REQUIRES_REVIEW', 'APPROVED', 'REJECTED')),
  tier_1_complete boolean NOT NULL DEFAULT false,
  tier_2_complete boolean NOT NULL DEFAULT false,
  capabilities jsonb NOT NULL DEFAULT '{}'::jsonb,
  rejection_reasons jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- The KYC provider's reference for this customer's verification profile.
  provider_profile_id text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (merchant_id, external_reference)
);
CREATE INDEX customers_merchant_created ON customers (merchant_id, created_at DESC, id DESC);
