-- Money that arrives at a treasury address (issue 14, "Operators and finance"). The indexers watch the
-- treasury's addresses (treasury_addresses) on every chain; a transfer paying one is recorded here,
-- never as a deposit (no destination has a treasury address), with the identity and life of a
-- deposit: (chain, tx_hash, position) unique among live rows, PENDING until it has the chain's
-- confirmations, REVERSED when a reorg takes its block away (a new row if it is mined again).
--
-- kind says whose money it is:
--   float: an operator topping the treasury up (any transfer not made by us): the operator's float,
--          posted to the ledger's operator_float account when confirmed, reversed like a deposit.
--   own:   the output of one of our own treasury transactions (a Bitcoin change output, a send to
--          ourselves) or a transfer from one of our deposit addresses (a sweep): custody that never
--          left us, nothing to post.
CREATE TABLE treasury_receipts (
  id uuid PRIMARY KEY,
  chain text NOT NULL,
  asset text NOT NULL,
  contract_address text,
  from_address text,
  to_address text NOT NULL,
  tx_hash text NOT NULL,
  position text NOT NULL,
  block_height bigint NOT NULL,
  block_hash text NOT NULL,
  decimals integer NOT NULL,
  amount_raw numeric(78, 0) NOT NULL CHECK (amount_raw > 0),
  required_confirmations integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('float', 'own')),
  status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'CONFIRMED', 'REVERSED')),
  -- The float's USD value, fixed at confirmation like a deposit's (the ledger is in USD micros).
  usd_rate text,
  amount_usd_micros numeric(30, 0),
  entry_id uuid,
  reversal_entry_id uuid,
  confirmed_at timestamptz(3),
  reversed_at timestamptz(3),
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX treasury_receipts_live_identity ON treasury_receipts (chain, tx_hash, position)
  WHERE status <> 'REVERSED';
CREATE INDEX treasury_receipts_pending ON treasury_receipts (chain, block_height) WHERE status = 'PENDING';

-- The operator's float in the ledger (sign conventions in 0010_ledger_accounts.sql):
--   operator_float  system  credit-normal  equity: the operator's own money in the treasury, valued
--                                           in USD when it confirmed; never a merchant's
-- Entry kinds, referenced by the treasury_receipts id:
--   float_receipt   deposit_clearing (debit: crypto arrived on our addresses) -> operator_float (credit)
--   float_reversal  the exact opposite, when a reorg takes a confirmed receipt's block away
ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN (
  'merchant_available', 'merchant_reserved', 'merchant_held',
  'deposit_clearing', 'bank_clearing', 'fee_revenue', 'payout_clearing', 'returns_payable', 'operator_float'
));
INSERT INTO ledger_accounts (id, kind, merchant_id, currency, normal_side)
  VALUES (gen_random_uuid(), 'operator_float', NULL, 'USD', 'credit');

ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_kind_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_kind_check CHECK (kind IN (
  'deposit_credit', 'deposit_reversal', 'bank_deposit', 'hold', 'hold_settle', 'hold_release',
  'held_release', 'held_return', 'float_receipt', 'float_reversal'
));
