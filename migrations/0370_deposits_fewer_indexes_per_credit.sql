-- Issue 33: crediting a deposit UPDATEs it to CONFIRMED. That update cannot be HOT (it changes
-- status, which deposits_pending and deposits_live_identity name in their predicates, and hold_status,
-- which deposits_held names), so it writes a new entry into every index whose predicate the new row
-- matches: 8 per credit before this migration. Two of them go, and no read the API or the workers
-- run gets slower (EXPLAIN on 100,000 deposits over 5 merchants: docs/benchmarks.md, issue 33 row).

-- deposits_merchant_status_created (merchant_id, status, created_at, id) went. What read it:
--  * status = 'CONFIRMED' (nearly every row of a merchant): the merchant's rows newest first, from
--    deposits_merchant_created, which now carries status as a last key column, so the filter is
--    checked in the index (and a count of them is an index-only scan, as it was);
--  * status = 'PENDING' (the list filter, the balance's pending sum) and status = 'REVERSED' (the
--    list filter): two partial indexes. A credit's new row matches neither predicate, so neither
--    gets an entry at a credit: PENDING's is written when the deposit is recorded (in place of the
--    dropped index's entry), REVERSED's when a reorg reverses it.
DROP INDEX deposits_merchant_created;
CREATE INDEX deposits_merchant_created ON deposits (merchant_id, created_at DESC, id DESC, status);
DROP INDEX deposits_merchant_status_created;
CREATE INDEX deposits_merchant_pending ON deposits (merchant_id, created_at DESC, id DESC) WHERE status = 'PENDING';
CREATE INDEX deposits_merchant_reversed ON deposits (merchant_id, created_at DESC, id DESC) WHERE status = 'REVERSED';

-- deposits_wallet (wallet_id) went: a deposit's wallet is its destination's (record-deposits.ts, the
-- only writer, takes both from one destinations row), and a wallet has one destination per chain
-- (destinations_wallet_id_chain_key), so the reads by wallet (the list filter, the payment-request
-- matcher, the re-quote check) ask for destination_id IN the wallet's destinations and read
-- deposits_destination, which the transfer executor and the sweepers need anyway.
DROP INDEX deposits_wallet;
