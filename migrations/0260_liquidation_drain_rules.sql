-- Liquidation addresses, the rest of issue 30 (docs/liquidation-addresses.md):
--
-- 1. Travel rule: an address bound to a crypto address keeps the beneficiary it was created with,
--    sealed like the transfers' (migration 0210: AES-256-GCM under the deployment's encryption key,
--    here the address id as associated data; `keys rotate-encryption` re-seals it). Each drain's
--    quote carries it when the payout is at or above TRAVEL_RULE_THRESHOLD_USD.
ALTER TABLE liquidation_addresses
  ADD COLUMN beneficiary_ciphertext bytea,
  ADD COLUMN beneficiary_key_id text,
  ADD CONSTRAINT liquidation_addresses_beneficiary_sealed
    CHECK ((beneficiary_ciphertext IS NULL) = (beneficiary_key_id IS NULL)),
  ADD CONSTRAINT liquidation_addresses_beneficiary_crypto_only
    CHECK (beneficiary_ciphertext IS NULL OR destination_kind = 'CRYPTO_ADDRESS');
CREATE INDEX liquidation_addresses_beneficiary_key_id ON liquidation_addresses (beneficiary_key_id)
  WHERE beneficiary_key_id IS NOT NULL;

-- 2. A drain whose transfer cannot be made (a refused payout, a beneficiary missing, retries spent)
--    ends `failed` straight from awaiting_funds, without a transfer, failure_reason saying why; its
--    money stays on the merchant's available balance (credited at confirmation), flagged by the row.
--    A drain whose transfer failed says so too (payout_failed).
ALTER TABLE liquidation_drains ADD COLUMN failure_reason text;
ALTER TABLE liquidation_drains
  ADD CONSTRAINT liquidation_drains_failure_reason CHECK ((failure_reason IS NULL) OR state IN ('failed', 'refunded'));

-- The 0220 rule "every state but awaiting_funds, not_paid and canceled has a transfer" (an unnamed
-- CHECK) now admits a failed drain without one, when it says why.
DO $$
DECLARE
  name text;
BEGIN
  SELECT conname INTO name FROM pg_constraint
   WHERE conrelid = 'liquidation_drains'::regclass AND contype = 'c'
     AND pg_get_constraintdef(oid) LIKE '%transfer_id IS NOT NULL%';
  EXECUTE format('ALTER TABLE liquidation_drains DROP CONSTRAINT %I', name);
END
$$;
ALTER TABLE liquidation_drains
  ADD CONSTRAINT liquidation_drains_transfer_made CHECK (
    state IN ('awaiting_funds', 'not_paid', 'canceled') OR transfer_id IS NOT NULL
    OR (state = 'failed' AND failure_reason IS NOT NULL)
  );

CREATE OR REPLACE FUNCTION liquidation_drain_transition_allowed(from_state text, to_state text)
  RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT (from_state, to_state) IN (
    ('awaiting_funds', 'payment_submitted'),
    ('awaiting_funds', 'not_paid'),
    ('awaiting_funds', 'canceled'),
    ('awaiting_funds', 'failed'),
    ('payment_submitted', 'payment_processed'),
    ('payment_submitted', 'failed'),
    ('payment_processed', 'refunded'),
    ('failed', 'refunded')
  )
$$;

-- 3. The product's own fee: LIQUIDATION_FEE_FIXED_USD + LIQUIDATION_FEE_BPS, or the merchant's row here.
CREATE TABLE liquidation_fee_overrides (
  merchant_id uuid PRIMARY KEY REFERENCES merchants (id),
  fixed_usd_micros numeric(30, 0) NOT NULL CHECK (fixed_usd_micros >= 0),
  basis_points integer NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
