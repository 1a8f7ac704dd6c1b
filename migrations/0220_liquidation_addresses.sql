-- Liquidation addresses (issue 30): a permanent deposit address of ours bound to a destination; every
-- deposit to it is paid out there without a call (a "drain").
--
-- Addresses: each liquidation address has a wallet of its own (purpose LIQUIDATION) at the merchant's
-- next wallet index, derived like every wallet, so the indexer watches it, the sweepers sweep it and an
-- index is never used twice. One asset on one network per address (docs/liquidation-addresses.md).
ALTER TABLE wallets DROP CONSTRAINT wallets_purpose_check;
ALTER TABLE wallets
  ADD CONSTRAINT wallets_purpose_check
    CHECK (purpose IN ('CUSTOMER', 'TRANSFER_FUNDING', 'PAYMENT_REQUEST', 'LIQUIDATION'));

-- destination_kind as transfer quotes: CRYPTO_ADDRESS (destination_address) or US_BANK_ACCOUNT (the
-- account's details sealed with the deployment's encryption key, associated data the address id, only
-- their mask in the clear).
CREATE TABLE liquidation_addresses (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  wallet_id uuid NOT NULL UNIQUE REFERENCES wallets (id),
  destination_id uuid NOT NULL UNIQUE REFERENCES destinations (id),
  chain text NOT NULL,
  asset text NOT NULL,
  decimals integer NOT NULL CHECK (decimals BETWEEN 0 AND 36),
  address text NOT NULL,
  destination_kind text NOT NULL CHECK (destination_kind IN ('CRYPTO_ADDRESS', 'US_BANK_ACCOUNT')),
  destination_asset text NOT NULL,
  destination_network text NOT NULL,
  destination_decimals integer NOT NULL CHECK (destination_decimals BETWEEN 0 AND 36),
  destination_address text,
  destination_bank_ciphertext bytea,
  destination_bank_key_id text,
  destination_bank_mask text,
  return_address text,
  reference text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((status = 'disabled') = (disabled_at IS NOT NULL)),
  CHECK (
    (destination_kind = 'CRYPTO_ADDRESS' AND destination_address IS NOT NULL
       AND destination_bank_ciphertext IS NULL AND destination_bank_mask IS NULL)
    OR (destination_kind = 'US_BANK_ACCOUNT' AND destination_address IS NULL
       AND destination_bank_ciphertext IS NOT NULL AND destination_bank_key_id IS NOT NULL
       AND destination_bank_mask IS NOT NULL)
  )
);
CREATE INDEX liquidation_addresses_merchant_created ON liquidation_addresses (merchant_id, created_at DESC, id DESC);
CREATE INDEX liquidation_addresses_bank_key_id ON liquidation_addresses (destination_bank_key_id)
  WHERE destination_bank_key_id IS NOT NULL;

-- Drains: one per deposit of the address's asset seen while the address was active (deposit_id
-- unique: a deposit is drained at most once whatever crashes, repeats or workers). States:
--   awaiting_funds     the deposit is seen, not confirmed yet
--   payment_submitted  confirmed, valued and handed to a BALANCE transfer (transfer_id): the executor pays it
--   payment_processed  the transfer completed
--   failed             the transfer failed (its hold released: the money is the merchant's available)
--   refunded           the bank returned the payout (credited back to the merchant)
--   not_paid           confirmed but not paid out (not_paid_reason: below_minimum, held); stays credited
--                      to the merchant (held: to its held account), flagged by this row
--   canceled           the deposit was reversed by a reorg before its payout: nothing was paid
CREATE TABLE liquidation_drains (
  id uuid PRIMARY KEY,
  liquidation_address_id uuid NOT NULL REFERENCES liquidation_addresses (id),
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  deposit_id uuid NOT NULL UNIQUE REFERENCES deposits (id),
  state text NOT NULL DEFAULT 'awaiting_funds' CHECK (state IN (
    'awaiting_funds', 'payment_submitted', 'payment_processed', 'failed', 'refunded', 'not_paid', 'canceled'
  )),
  not_paid_reason text,
  transfer_id uuid UNIQUE REFERENCES transfers (id),
  -- Claimed by a worker until then (several workers: a claim is taken with FOR UPDATE SKIP LOCKED).
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz(3) NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((state = 'not_paid') = (not_paid_reason IS NOT NULL)),
  CHECK (state IN ('awaiting_funds', 'not_paid', 'canceled') OR transfer_id IS NOT NULL)
);
CREATE INDEX liquidation_drains_address ON liquidation_drains (liquidation_address_id, created_at DESC, id DESC);
CREATE INDEX liquidation_drains_open ON liquidation_drains (next_attempt_at)
  WHERE state IN ('awaiting_funds', 'payment_submitted');

-- Every state a drain takes, with its time (the first included), written by the trigger in the
-- transaction of the change; a state is never entered twice.
CREATE TABLE liquidation_drain_transitions (
  id bigserial PRIMARY KEY,
  drain_id uuid NOT NULL REFERENCES liquidation_drains (id),
  from_state text,
  to_state text NOT NULL,
  at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (drain_id, to_state)
);

CREATE FUNCTION liquidation_drain_transition_allowed(from_state text, to_state text)
  RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT (from_state, to_state) IN (
    ('awaiting_funds', 'payment_submitted'),
    ('awaiting_funds', 'not_paid'),
    ('awaiting_funds', 'canceled'),
    ('payment_submitted', 'payment_processed'),
    ('payment_submitted', 'failed'),
    ('payment_processed', 'refunded'),
    ('failed', 'refunded')
  )
$$;

CREATE FUNCTION liquidation_drain_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION 'drain % cannot be deleted', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.state <> 'awaiting_funds' THEN
      RAISE EXCEPTION 'drain % must start awaiting_funds', NEW.id USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.deposit_id <> OLD.deposit_id OR NEW.liquidation_address_id <> OLD.liquidation_address_id
     OR NEW.transfer_id IS DISTINCT FROM OLD.transfer_id AND OLD.transfer_id IS NOT NULL THEN
    RAISE EXCEPTION 'drain % is immutable but for its state', OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.state <> OLD.state THEN
    IF NOT liquidation_drain_transition_allowed(OLD.state, NEW.state) THEN
      RAISE EXCEPTION 'drain %: % -> % is not a transition', OLD.id, OLD.state, NEW.state
        USING ERRCODE = 'check_violation';
    END IF;
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER liquidation_drains_guard BEFORE INSERT OR UPDATE OR DELETE ON liquidation_drains
  FOR EACH ROW EXECUTE FUNCTION liquidation_drain_guard();

CREATE FUNCTION liquidation_drain_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO liquidation_drain_transitions (drain_id, from_state, to_state) VALUES (NEW.id, NULL, NEW.state);
  ELSIF NEW.state <> OLD.state THEN
    INSERT INTO liquidation_drain_transitions (drain_id, from_state, to_state) VALUES (NEW.id, OLD.state, NEW.state);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER liquidation_drains_record AFTER INSERT OR UPDATE ON liquidation_drains
  FOR EACH ROW EXECUTE FUNCTION liquidation_drain_record();

-- The history is append-only.
CREATE TRIGGER liquidation_drain_transitions_immutable BEFORE UPDATE OR DELETE ON liquidation_drain_transitions
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();

-- A deposit of the address's asset to an active liquidation address becomes a drain in the
-- indexer's own transaction (nothing missed whatever crashes); after disable, deposits are ordinary.
CREATE FUNCTION liquidation_deposit_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO liquidation_drains (id, liquidation_address_id, merchant_id, deposit_id)
  SELECT gen_random_uuid(), a.id, a.merchant_id, NEW.id
    FROM liquidation_addresses a
   WHERE a.destination_id = NEW.destination_id AND a.asset = NEW.asset AND a.status = 'active'
  ON CONFLICT (deposit_id) DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER deposits_liquidation_inserted AFTER INSERT ON deposits
  FOR EACH ROW EXECUTE FUNCTION liquidation_deposit_seen();
