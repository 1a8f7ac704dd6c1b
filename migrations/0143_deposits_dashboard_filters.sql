-- The dashboard's deposits page filters a merchant's deposits by status or chain and pages them by
-- keyset (created_at, id), newest first: without these, a filter matching few of 100,000 deposits
-- would walk deposits_merchant_created through every non-matching row.
CREATE INDEX deposits_merchant_status_created ON deposits (merchant_id, status, created_at DESC, id DESC);
CREATE INDEX deposits_merchant_chain_created ON deposits (merchant_id, chain, created_at DESC, id DESC);
