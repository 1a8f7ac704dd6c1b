-- Money received on a virtual account. Each is credited to the merchant's USD balance by one ledger
-- entry (bank_clearing -> merchant_available), recorded here; the ledger's own idempotency per
-- deposit id makes a second credit impossible.
CREATE TABLE bank_deposits (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  virtual_account_id uuid NOT NULL REFERENCES virtual_accounts (id),
  customer_id uuid NOT NULL REFERENCES customers (id),
  amount_usd_micros numeric(30, 0) NOT NULL CHECK (amount_usd_micros > 0),
  reference text,
  status text NOT NULL DEFAULT 'CREDITED' CHECK (status IN ('CREDITED')),
  ledger_entry_id uuid NOT NULL,
  credited_at timestamptz(3) NOT NULL DEFAULT now(),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX bank_deposits_account_created ON bank_deposits (virtual_account_id, created_at DESC, id DESC);
CREATE INDEX bank_deposits_merchant_created ON bank_deposits (merchant_id, created_at DESC, id DESC);
