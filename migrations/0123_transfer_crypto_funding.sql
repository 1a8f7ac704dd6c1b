-- Crypto-funded transfers (issue 15, source CRYPTO_DEPOSIT): the customer pays the quoted asset to a
-- fresh address of ours on the quoted network, just in time.
--
-- The address is a wallet's: a CRYPTO_DEPOSIT intent gets a wallet of its own (purpose
-- TRANSFER_FUNDING) at the merchant's next wallet index, derived like every wallet from the extended
-- public keys (Solana from the signer-filled pool), so the indexer watches it and the sweepers sweep
-- it, and an index is never used twice. Such wallets are not the merchant's customer wallets: the
-- wallet routes never list them.
ALTER TABLE wallets ADD COLUMN purpose text NOT NULL DEFAULT 'CUSTOMER'
  CHECK (purpose IN ('CUSTOMER', 'TRANSFER_FUNDING'));

-- The intent's deposit address: its wallet's destination on the quoted network. NULL while it is
-- being provisioned (the address was not available at once: spec 2.9, an intent without instructions).
ALTER TABLE funding_intents
  ADD COLUMN deposit_destination_id uuid UNIQUE REFERENCES destinations (id),
  DROP CONSTRAINT funding_intents_flag_code_check,
  ADD CONSTRAINT funding_intents_flag_code_check
    CHECK (flag_code IN ('AMOUNT_MISMATCH', 'LATE_PAYMENT', 'FUNDING_REVERSED')),
  ADD CONSTRAINT funding_intents_deposit_destination CHECK (method = 'CRYPTO_DEPOSIT' OR deposit_destination_id IS NULL);
CREATE INDEX funding_intents_unprovisioned ON funding_intents (created_at)
  WHERE method = 'CRYPTO_DEPOSIT' AND deposit_destination_id IS NULL AND status = 'PENDING';

-- A credit is a bank deposit (by reference) or a confirmed chain deposit (to the intent's address),
-- each applied once: the deposit's id is unique here. The chain deposit was credited to the
-- merchant's available balance by the indexer like any deposit (deposit_credit, without the
-- merchant's deposit fee: the transfer has its own); applying it holds the part the intent still
-- needed. reversed_at: its block left the chain (a reorg) and what it held was released.
ALTER TABLE funding_intent_credits DROP CONSTRAINT funding_intent_credits_pkey;
ALTER TABLE funding_intent_credits
  ALTER COLUMN bank_deposit_id DROP NOT NULL,
  ADD CONSTRAINT funding_intent_credits_bank_deposit UNIQUE (bank_deposit_id),
  ADD COLUMN deposit_id uuid UNIQUE REFERENCES deposits (id),
  ADD COLUMN reversed_at timestamptz(3),
  ADD CONSTRAINT funding_intent_credits_one_source CHECK (num_nonnulls(bank_deposit_id, deposit_id) = 1),
  ADD CONSTRAINT funding_intent_credits_reversed_chain CHECK (reversed_at IS NULL OR deposit_id IS NOT NULL),
  -- A hold per applied credit, but none for a part of a chain deposit worth less than a micro-dollar.
  DROP CONSTRAINT funding_intent_credits_check2,
  ADD CONSTRAINT funding_intent_credits_hold CHECK (hold_id IS NULL OR applied_amount > 0);

-- The transfer executor's pass looks up the deposits of each funding address (and the credits whose
-- deposit a reorg reversed) every second.
CREATE INDEX deposits_destination ON deposits (destination_id);
CREATE INDEX funding_intent_credits_unreversed_deposit ON funding_intent_credits (deposit_id)
  WHERE deposit_id IS NOT NULL AND reversed_at IS NULL;
