-- Quotes of merchant transfers (issue 15, spec 2.9): the economics of one transfer, fixed once and
-- never changed. A quote says what the payer pays (source), what the payee receives (destination),
-- at which rate and for which fee, until when. It is used by at most one transfer (used_at, and
-- transfers.quote_id is unique).
--
-- Amounts are integers in the smallest unit of their asset: USD in micro-dollars (6 decimals, as the
-- ledger), rounded to whole cents wherever money moves on a bank rail; crypto in the chain's units.
-- Money networks: a fiat amount names its bank rail (ACH), a crypto amount its chain id (BASE),
-- a merchant balance LEDGER.
--
-- source_method:
--   BANK_TRANSFER   the customer pays USD by bank, just in time (payer CUSTOMER)
--   CRYPTO_DEPOSIT  the customer pays an asset on a network, just in time (payer CUSTOMER)
--   BALANCE         the merchant pays from its available USD (payer MERCHANT)
-- destination_kind:
--   CRYPTO_ADDRESS   destination_address on destination_network
--   US_BANK_ACCOUNT  the account's details sealed with the deployment's encryption key (associated
--                    data: the quote id), only their mask in the clear
CREATE TABLE transfer_quotes (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  source_method text NOT NULL CHECK (source_method IN ('BANK_TRANSFER', 'CRYPTO_DEPOSIT', 'BALANCE')),
  source_asset text NOT NULL,
  source_network text NOT NULL,
  source_decimals integer NOT NULL CHECK (source_decimals BETWEEN 0 AND 36),
  -- What the payer pays, the fee included.
  source_amount numeric(78, 0) NOT NULL CHECK (source_amount > 0),
  fee_amount numeric(78, 0) NOT NULL CHECK (fee_amount >= 0 AND fee_amount < source_amount),
  destination_kind text NOT NULL CHECK (destination_kind IN ('CRYPTO_ADDRESS', 'US_BANK_ACCOUNT')),
  destination_asset text NOT NULL,
  destination_network text NOT NULL,
  destination_decimals integer NOT NULL CHECK (destination_decimals BETWEEN 0 AND 36),
  destination_amount numeric(78, 0) NOT NULL CHECK (destination_amount > 0),
  destination_address text,
  destination_bank_ciphertext bytea,
  destination_bank_key_id text,
  destination_bank_mask text,
  -- Destination units per source unit, the spread taken: the figure the amounts were computed with.
  rate_value text NOT NULL,
  -- The providers' USD prices and the pricing settings the quote was made with (audit).
  source_usd_rate text NOT NULL,
  destination_usd_rate text NOT NULL,
  spread_bps integer NOT NULL CHECK (spread_bps BETWEEN 0 AND 10000),
  fee_fixed_usd_micros numeric(30, 0) NOT NULL CHECK (fee_fixed_usd_micros >= 0),
  fee_bps integer NOT NULL CHECK (fee_bps BETWEEN 0 AND 10000),
  -- The source amount and the fee in USD micros: what a hold on the merchant's balance is in.
  source_usd_micros numeric(30, 0) NOT NULL CHECK (source_usd_micros > 0),
  fee_usd_micros numeric(30, 0) NOT NULL CHECK (fee_usd_micros >= 0),
  expires_at timestamptz(3) NOT NULL,
  used_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK (
    (destination_kind = 'CRYPTO_ADDRESS' AND destination_address IS NOT NULL
       AND destination_bank_ciphertext IS NULL AND destination_bank_key_id IS NULL AND destination_bank_mask IS NULL)
    OR (destination_kind = 'US_BANK_ACCOUNT' AND destination_address IS NULL
       AND destination_bank_ciphertext IS NOT NULL AND destination_bank_key_id IS NOT NULL
       AND destination_bank_mask IS NOT NULL)
  ),
  CHECK (expires_at > created_at)
);
CREATE INDEX transfer_quotes_merchant_created ON transfer_quotes (merchant_id, created_at DESC, id DESC);
CREATE INDEX transfer_quotes_bank_key_id ON transfer_quotes (destination_bank_key_id)
  WHERE destination_bank_key_id IS NOT NULL;

-- Immutable: only used_at is set, once; only the key rotation re-seals the bank details (same plaintext).
CREATE FUNCTION transfer_quotes_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'transfer quote % cannot be deleted', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF OLD.used_at IS NOT NULL AND NEW.used_at IS DISTINCT FROM OLD.used_at THEN
    RAISE EXCEPTION 'transfer quote % is already used', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF (to_jsonb(NEW) - 'used_at' - 'destination_bank_ciphertext' - 'destination_bank_key_id')
     IS DISTINCT FROM (to_jsonb(OLD) - 'used_at' - 'destination_bank_ciphertext' - 'destination_bank_key_id') THEN
    RAISE EXCEPTION 'transfer quote % is immutable', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER transfer_quotes_guard BEFORE UPDATE OR DELETE ON transfer_quotes
  FOR EACH ROW EXECUTE FUNCTION transfer_quotes_guard();

-- Per-merchant fee schedules; a merchant without a row pays the configured default
-- (TRANSFER_FEE_FIXED_USD, TRANSFER_FEE_BPS).
CREATE TABLE transfer_fee_overrides (
  merchant_id uuid PRIMARY KEY REFERENCES merchants (id),
  fixed_usd_micros numeric(30, 0) NOT NULL CHECK (fixed_usd_micros >= 0),
  basis_points integer NOT NULL CHECK (basis_points BETWEEN 0 AND 10000),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
