-- Transfers, their funding intents and the history of both (issue 15, spec 2.9 and 3).
--
-- A transfer uses one quote (quote_id unique). Its states:
--   AWAITING_MERCHANT_FUNDING -> FUNDED | CANCELED | EXPIRED
--   FUNDED                    -> PROCESSING | FAILED | CANCELED (BALANCE only: the merchant's own
--                                money, held and not sent yet, is released; a customer's payment is not)
--   PROCESSING                -> COMPLETED | FAILED
--   FAILED                    -> REFUNDED
-- Its funding intent: PENDING -> FUNDED | EXPIRED | CANCELED.
-- Every state a row takes (its first included) is one row of transfer_transitions, written by the
-- triggers below in the transaction of the change; a transition outside these lists is refused, and
-- a state is never entered twice (unique per object and state), so nothing is skipped or re-entered
-- whatever the code does.
CREATE TABLE transfers (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  quote_id uuid NOT NULL UNIQUE REFERENCES transfer_quotes (id),
  status text NOT NULL CHECK (status IN (
    'AWAITING_MERCHANT_FUNDING', 'FUNDED', 'PROCESSING', 'COMPLETED', 'CANCELED', 'EXPIRED', 'FAILED', 'REFUNDED'
  )),
  -- TRANSFER_JIT: the customer pays just in time; BALANCE: the merchant's available USD, held at creation.
  funding_mode text NOT NULL CHECK (funding_mode IN ('TRANSFER_JIT', 'BALANCE')),
  -- The ledger hold of a BALANCE transfer (ledger_holds.id).
  hold_id text,
  expires_at timestamptz(3) NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((funding_mode = 'BALANCE') = (hold_id IS NOT NULL))
);
CREATE INDEX transfers_merchant_created ON transfers (merchant_id, created_at DESC, id DESC);
CREATE INDEX transfers_merchant_status ON transfers (merchant_id, status);
CREATE INDEX transfers_awaiting_expiry ON transfers (expires_at) WHERE status = 'AWAITING_MERCHANT_FUNDING';

CREATE TABLE funding_intents (
  id uuid PRIMARY KEY,
  transfer_id uuid NOT NULL UNIQUE REFERENCES transfers (id),
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  status text NOT NULL CHECK (status IN ('PENDING', 'FUNDED', 'EXPIRED', 'CANCELED')),
  method text NOT NULL CHECK (method IN ('BANK_TRANSFER', 'CRYPTO_DEPOSIT', 'BALANCE')),
  payer_type text NOT NULL CHECK (payer_type IN ('CUSTOMER', 'MERCHANT')),
  -- In the smallest unit of `asset` (USD: micro-dollars, whole cents on bank rails).
  required_amount numeric(78, 0) NOT NULL CHECK (required_amount > 0),
  received_amount numeric(78, 0) NOT NULL DEFAULT 0 CHECK (received_amount >= 0 AND received_amount <= required_amount),
  asset text NOT NULL,
  network text NOT NULL,
  decimals integer NOT NULL,
  -- What the payer quotes with the payment; bank credits naming it fund this intent.
  reference text NOT NULL UNIQUE,
  narration text NOT NULL,
  flag_code text CHECK (flag_code IN ('AMOUNT_MISMATCH', 'LATE_PAYMENT')),
  flag_message text,
  expires_at timestamptz(3) NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((flag_code IS NULL) = (flag_message IS NULL)),
  CHECK (status <> 'FUNDED' OR received_amount = required_amount)
);
CREATE INDEX funding_intents_merchant ON funding_intents (merchant_id);

-- Each bank credit whose reference named an intent, and what became of it:
--   APPLIED  applied_amount held for the transfer (ledger hold hold_id); excess_amount, if any, stays
--            in the merchant's available balance
--   LATE     the intent was no longer PENDING (funded, expired, canceled): all of it stays available
CREATE TABLE funding_intent_credits (
  bank_deposit_id uuid PRIMARY KEY REFERENCES bank_deposits (id),
  intent_id uuid NOT NULL REFERENCES funding_intents (id),
  outcome text NOT NULL CHECK (outcome IN ('APPLIED', 'LATE')),
  amount numeric(78, 0) NOT NULL CHECK (amount > 0),
  applied_amount numeric(78, 0) NOT NULL CHECK (applied_amount >= 0),
  excess_amount numeric(78, 0) NOT NULL CHECK (excess_amount >= 0),
  hold_id text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK (applied_amount + excess_amount = amount),
  CHECK ((outcome = 'LATE') = (applied_amount = 0)),
  CHECK ((hold_id IS NULL) = (applied_amount = 0))
);
CREATE INDEX funding_intent_credits_intent ON funding_intent_credits (intent_id, created_at);

CREATE TABLE transfer_transitions (
  id bigserial PRIMARY KEY,
  object_type text NOT NULL CHECK (object_type IN ('transfer', 'funding_intent')),
  object_id uuid NOT NULL,
  from_status text,
  to_status text NOT NULL,
  at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (object_type, object_id, to_status)
);

CREATE FUNCTION transfer_transition_allowed(object_type text, from_status text, to_status text)
  RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT (object_type, from_status, to_status) IN (
    ('transfer', 'AWAITING_MERCHANT_FUNDING', 'FUNDED'),
    ('transfer', 'AWAITING_MERCHANT_FUNDING', 'CANCELED'),
    ('transfer', 'AWAITING_MERCHANT_FUNDING', 'EXPIRED'),
    ('transfer', 'FUNDED', 'PROCESSING'),
    ('transfer', 'FUNDED', 'FAILED'),
    ('transfer', 'FUNDED', 'CANCELED'),
    ('transfer', 'PROCESSING', 'COMPLETED'),
    ('transfer', 'PROCESSING', 'FAILED'),
    ('transfer', 'FAILED', 'REFUNDED'),
    ('funding_intent', 'PENDING', 'FUNDED'),
    ('funding_intent', 'PENDING', 'EXPIRED'),
    ('funding_intent', 'PENDING', 'CANCELED')
  )
$$;

-- TG_ARGV[0]: the object type; TG_ARGV[1]: the only state a row may be created in.
CREATE FUNCTION transfer_status_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    RAISE EXCEPTION '% % cannot be deleted', TG_ARGV[0], OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.status <> TG_ARGV[1] THEN
      RAISE EXCEPTION '% % must start %', TG_ARGV[0], NEW.id, TG_ARGV[1] USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.created_at <> OLD.created_at
     OR NEW.expires_at <> OLD.expires_at THEN
    RAISE EXCEPTION '% % is immutable but for its state', TG_ARGV[0], OLD.id USING ERRCODE = 'restrict_violation';
  END IF;
  IF NEW.status <> OLD.status AND (NOT transfer_transition_allowed(TG_ARGV[0], OLD.status, NEW.status)
     OR (TG_ARGV[0] = 'transfer' AND OLD.status = 'FUNDED' AND NEW.status = 'CANCELED'
         AND to_jsonb(NEW) ->> 'funding_mode' <> 'BALANCE')) THEN
    RAISE EXCEPTION '% %: % -> % is not a transition', TG_ARGV[0], OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END;
$$;

CREATE FUNCTION transfer_status_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO transfer_transitions (object_type, object_id, from_status, to_status)
      VALUES (TG_ARGV[0], NEW.id, NULL, NEW.status);
  ELSIF NEW.status <> OLD.status THEN
    INSERT INTO transfer_transitions (object_type, object_id, from_status, to_status)
      VALUES (TG_ARGV[0], NEW.id, OLD.status, NEW.status);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER transfers_status_guard BEFORE INSERT OR UPDATE OR DELETE ON transfers
  FOR EACH ROW EXECUTE FUNCTION transfer_status_guard('transfer', 'AWAITING_MERCHANT_FUNDING');
CREATE TRIGGER transfers_status_record AFTER INSERT OR UPDATE ON transfers
  FOR EACH ROW EXECUTE FUNCTION transfer_status_record('transfer');
CREATE TRIGGER funding_intents_status_guard BEFORE INSERT OR UPDATE OR DELETE ON funding_intents
  FOR EACH ROW EXECUTE FUNCTION transfer_status_guard('funding_intent', 'PENDING');
CREATE TRIGGER funding_intents_status_record AFTER INSERT OR UPDATE ON funding_intents
  FOR EACH ROW EXECUTE FUNCTION transfer_status_record('funding_intent');

-- The history is append-only.
CREATE TRIGGER transfer_transitions_immutable BEFORE UPDATE OR DELETE ON transfer_transitions
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
