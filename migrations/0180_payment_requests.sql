-- Payment requests (issue 31): a merchant asks for an amount; the payer picks an accepted asset and
-- network on the hosted page (/pay/{checkout_token}) and pays a fresh address of ours.
--
-- Addresses: a request gets a wallet of its own (purpose PAYMENT_REQUEST) at the merchant's next
-- wallet index, derived like every wallet, so the indexer watches it, the sweepers sweep it and an
-- index is never used twice. A request may name no customer: such a wallet has none.
ALTER TABLE wallets DROP CONSTRAINT wallets_purpose_check;
ALTER TABLE wallets
  ADD CONSTRAINT wallets_purpose_check CHECK (purpose IN ('CUSTOMER', 'TRANSFER_FUNDING', 'PAYMENT_REQUEST')),
  ALTER COLUMN customer_id DROP NOT NULL,
  ADD CONSTRAINT wallets_customer_required CHECK (customer_id IS NOT NULL OR purpose = 'PAYMENT_REQUEST');

-- Amounts are integers of smallest units: `amount` in the request's currency (USD: cents; a crypto
-- asset: its smallest unit at currency_decimals). The figures (amount_paid ...) are the matcher's,
-- recomputed from the request's payments whenever a deposit to its wallet changes.
CREATE TABLE payment_requests (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  -- The hosted page's id: 128 random bits, the only key a payer needs (never the API's id).
  checkout_token text NOT NULL UNIQUE,
  wallet_id uuid NOT NULL UNIQUE REFERENCES wallets (id),
  customer_id uuid REFERENCES customers (id),
  currency text NOT NULL,
  currency_decimals integer NOT NULL CHECK (currency_decimals BETWEEN 0 AND 36),
  amount numeric(78, 0) NOT NULL CHECK (amount > 0),
  description text,
  reference text,
  metadata jsonb NOT NULL DEFAULT '{}',
  success_url text,
  cancel_url text,
  status text NOT NULL DEFAULT 'open'
    CHECK (status IN ('open', 'processing', 'paid', 'underpaid', 'overpaid', 'expired', 'canceled')),
  amount_paid numeric(78, 0) NOT NULL DEFAULT 0,
  amount_pending numeric(78, 0) NOT NULL DEFAULT 0,
  amount_missing numeric(78, 0) NOT NULL,
  amount_excess numeric(78, 0) NOT NULL DEFAULT 0,
  -- Until when the options' amounts hold; re-quoted when it lapses while nothing was paid; once a
  -- payment is seen the quote holds until expires_at.
  rate_locked_until timestamptz(3) NOT NULL,
  quote_version integer NOT NULL DEFAULT 1,
  expires_at timestamptz(3) NOT NULL,
  paid_at timestamptz(3),
  canceled_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((status = 'canceled') = (canceled_at IS NOT NULL))
);
CREATE INDEX payment_requests_merchant_created ON payment_requests (merchant_id, created_at DESC, id DESC);
CREATE INDEX payment_requests_merchant_status ON payment_requests (merchant_id, status);
CREATE INDEX payment_requests_due_expiry ON payment_requests (expires_at) WHERE status IN ('open', 'underpaid');

-- The accepted (network, asset) pairs: the wallet's address on the network and what the whole
-- request costs in the asset at the locked rate (usd_rate null when the request is in that asset).
CREATE TABLE payment_request_options (
  request_id uuid NOT NULL REFERENCES payment_requests (id),
  position integer NOT NULL,
  chain text NOT NULL,
  asset text NOT NULL,
  decimals integer NOT NULL,
  contract_address text,
  destination_id uuid NOT NULL REFERENCES destinations (id),
  address text NOT NULL,
  amount_due numeric(78, 0) NOT NULL CHECK (amount_due > 0),
  usd_rate text,
  PRIMARY KEY (request_id, chain, asset),
  UNIQUE (request_id, position)
);

-- Every deposit to a request's wallet, as the matcher last counted it. `flag`: why it does not count
-- (late: first seen after expiry or cancel; not_accepted: an asset or network the request does not
-- take; held: credited to held, its customer rejected); REVERSED ones count for nothing either.
CREATE TABLE payment_request_payments (
  deposit_id uuid PRIMARY KEY REFERENCES deposits (id),
  request_id uuid NOT NULL REFERENCES payment_requests (id),
  deposit_status text NOT NULL CHECK (deposit_status IN ('PENDING', 'CONFIRMED', 'REVERSED')),
  seen_at timestamptz(3) NOT NULL,
  flag text CHECK (flag IN ('late', 'not_accepted', 'held')),
  reported boolean NOT NULL DEFAULT false,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX payment_request_payments_request ON payment_request_payments (request_id);

-- What the matcher must look at again: a row per change of a deposit to a request's wallet, written
-- by the triggers below in the transaction of the change (the indexer's), so no change is missed
-- whatever crashes; the matcher deletes a request's rows before it reads its deposits.
CREATE TABLE payment_request_changes (
  id bigserial PRIMARY KEY,
  request_id uuid NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX payment_request_changes_request ON payment_request_changes (request_id);

CREATE FUNCTION payment_request_deposit_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO payment_request_changes (request_id)
  SELECT r.id FROM payment_requests r WHERE r.wallet_id = NEW.wallet_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER deposits_payment_request_inserted AFTER INSERT ON deposits
  FOR EACH ROW EXECUTE FUNCTION payment_request_deposit_changed();
CREATE TRIGGER deposits_payment_request_updated AFTER UPDATE OF status, hold_status ON deposits
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.hold_status IS DISTINCT FROM NEW.hold_status)
  EXECUTE FUNCTION payment_request_deposit_changed();
