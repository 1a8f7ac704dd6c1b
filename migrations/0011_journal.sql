-- The journal: append-only, balanced entries (sign conventions in 0010_ledger_accounts.sql).
--
-- An entry is one movement of money, identified for idempotency by (kind, reference): the deposit,
-- bank deposit or hold it records. Corrections are new entries (a reversal posts the exact
-- opposite lines); no entry or line is ever updated or deleted, which triggers below enforce.
CREATE TABLE journal_entries (
  id uuid PRIMARY KEY,
  -- Posting order, for a stable export order among entries of one transaction (same created_at).
  seq bigserial NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN (
    'deposit_credit', 'deposit_reversal', 'bank_deposit', 'hold', 'hold_settle', 'hold_release'
  )),
  reference text NOT NULL CHECK (length(reference) BETWEEN 1 AND 200),
  -- The merchant the movement belongs to (every entry today has one).
  merchant_id uuid REFERENCES merchants (id),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (kind, reference)
);
CREATE INDEX journal_entries_created ON journal_entries (created_at, seq);
CREATE INDEX journal_entries_merchant ON journal_entries (merchant_id, created_at);

CREATE TABLE journal_lines (
  entry_id uuid NOT NULL REFERENCES journal_entries (id),
  line_no smallint NOT NULL CHECK (line_no >= 1),
  account_id uuid NOT NULL,
  currency text NOT NULL,
  side text NOT NULL CHECK (side IN ('debit', 'credit')),
  -- Non-negative: the side says the direction. Zero appears only where the movement has a zero part
  -- (e.g. a deposit's fee line when the merchant pays no fee), so every entry of a kind has one shape.
  amount numeric(30, 0) NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (entry_id, line_no),
  FOREIGN KEY (account_id, currency) REFERENCES ledger_accounts (id, currency)
);
CREATE INDEX journal_lines_account ON journal_lines (account_id);

-- Append-only (ledger_immutable() is defined in 0010).
CREATE TRIGGER journal_entries_immutable BEFORE UPDATE OR DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER journal_lines_immutable BEFORE UPDATE OR DELETE ON journal_lines
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER journal_lines_no_truncate BEFORE TRUNCATE ON journal_lines
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();

-- Each line moves its account's derived balance in the same transaction, so no code path can insert
-- a line and forget the balance.
CREATE FUNCTION journal_line_apply_to_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE account_balances b
     SET balance = b.balance + CASE WHEN NEW.side = a.normal_side THEN NEW.amount ELSE -NEW.amount END,
         updated_at = now()
    FROM ledger_accounts a
   WHERE b.account_id = NEW.account_id AND a.id = NEW.account_id;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'ledger account % has no balance row', NEW.account_id USING ERRCODE = 'foreign_key_violation';
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER journal_lines_apply_to_balance AFTER INSERT ON journal_lines
  FOR EACH ROW EXECUTE FUNCTION journal_line_apply_to_balance();

-- Every entry balances per currency and has at least two lines. The code checks before inserting;
-- these deferred constraint triggers check again at COMMIT, when all of an entry's lines exist, so
-- no writer (a bug, a hand-written SQL fix) can commit an unbalanced entry or add a line to an old one.
CREATE FUNCTION journal_entry_assert_balanced(p_entry uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  unbalanced text;
BEGIN
  IF (SELECT count(*) FROM journal_lines WHERE entry_id = p_entry) < 2 THEN
    RAISE EXCEPTION 'journal entry % has fewer than two lines', p_entry USING ERRCODE = 'check_violation';
  END IF;
  SELECT currency INTO unbalanced FROM journal_lines WHERE entry_id = p_entry GROUP BY currency
    HAVING sum(CASE side WHEN 'debit' THEN amount ELSE -amount END) <> 0 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'journal entry % does not balance in %', p_entry, unbalanced USING ERRCODE = 'check_violation';
  END IF;
END;
$$;

CREATE FUNCTION journal_entries_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM journal_entry_assert_balanced(NEW.id);
  RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER journal_entries_balanced AFTER INSERT ON journal_entries
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_entries_check_balanced();

CREATE FUNCTION journal_lines_check_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM journal_entry_assert_balanced(NEW.entry_id);
  RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER journal_lines_balanced AFTER INSERT ON journal_lines
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_lines_check_balanced();
