-- Travel rule data (issue 29 item 5, docs/transfers.md "Travel rule"): a payout to a crypto address
-- worth TRAVEL_RULE_THRESHOLD_USD or more names its beneficiary (a person's name; a business's name,
-- legal name and country). The data is sealed like a bank destination's details (AES-256-GCM under
-- the deployment's encryption key, the quote id as associated data; `keys rotate-encryption` re-seals
-- it) and opened for operators only, each reading audited. Below the threshold nothing is kept.
--
-- destination_usd_micros: the payout's value in USD micros as the quote valued it (the destination
-- amount at the destination's USD rate), the figure the threshold was compared with. Null for quotes
-- made before this migration.
ALTER TABLE transfer_quotes
  ADD COLUMN destination_usd_micros numeric(30, 0) CHECK (destination_usd_micros >= 0),
  ADD COLUMN beneficiary_ciphertext bytea,
  ADD COLUMN beneficiary_key_id text,
  ADD CONSTRAINT transfer_quotes_beneficiary_sealed
    CHECK ((beneficiary_ciphertext IS NULL) = (beneficiary_key_id IS NULL)),
  ADD CONSTRAINT transfer_quotes_beneficiary_crypto_only
    CHECK (beneficiary_ciphertext IS NULL OR destination_kind = 'CRYPTO_ADDRESS');
