-- Banking by statement import (BANKING_PROVIDER=statement).
--
-- Virtual account numbers handed out from the operator's configured range, one per virtual
-- account, never reused. The number is what senders quote and what statements show, so it is kept
-- in clear here (a number from a known range gains nothing from being hashed); the full deposit
-- instructions stay sealed in virtual_accounts. No foreign key: the number is allocated before the
-- virtual account's row commits (the provider is called outside the request's transaction).
CREATE SEQUENCE statement_bank_account_seq AS bigint MINVALUE 0 START 0;
CREATE TABLE statement_bank_accounts (
  account_number text PRIMARY KEY,
  virtual_account_id uuid NOT NULL UNIQUE,
  allocated_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Every statement file imported (`payments bank import FILE`), with what it did.
CREATE TABLE bank_statement_imports (
  id uuid PRIMARY KEY,
  file_name text NOT NULL,
  file_sha256 text NOT NULL,
  format text NOT NULL CHECK (format IN ('camt053', 'csv')),
  lines integer NOT NULL,
  credited integer NOT NULL,
  unmatched integer NOT NULL,
  already_imported integer NOT NULL,
  imported_by text NOT NULL,
  imported_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Every booked line of every statement, once: `identity` is the same for the same booking in two
-- overlapping statements, so a re-import inserts nothing and credits nothing twice. A credit line
-- matched to an active USD virtual account is CREDITED with its bank deposit; one that matches
-- nothing is UNMATCHED (with the reason) until finance assigns it to an account or returns it;
-- debits and reversals are kept for the record and never credited automatically.
CREATE TABLE bank_statement_lines (
  id uuid PRIMARY KEY,
  identity text NOT NULL UNIQUE,
  import_id uuid NOT NULL REFERENCES bank_statement_imports (id),
  location text NOT NULL,
  account text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('CREDIT', 'DEBIT')),
  reversal boolean NOT NULL,
  amount text NOT NULL,
  currency text NOT NULL,
  booking_date date NOT NULL,
  bank_reference text NOT NULL,
  reference text,
  counterparty text,
  status text NOT NULL CHECK (status IN ('CREDITED', 'UNMATCHED', 'ASSIGNED', 'RETURNED', 'RECORDED')),
  reason text,
  virtual_account_id uuid REFERENCES virtual_accounts (id),
  bank_deposit_id uuid REFERENCES bank_deposits (id),
  resolved_by text,
  resolved_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  CHECK ((status IN ('CREDITED', 'ASSIGNED')) = (bank_deposit_id IS NOT NULL)),
  CHECK (status <> 'UNMATCHED' OR reason IS NOT NULL)
);
CREATE INDEX bank_statement_lines_unmatched ON bank_statement_lines (created_at) WHERE status = 'UNMATCHED';
