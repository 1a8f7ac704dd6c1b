-- Issue 30, return_address: a drain that fails from awaiting_funds (no transfer could be made) of an
-- address with a return_address does not leave its money on the merchant's available balance: in the
-- failing transaction its deposit's credit is taken back into returns_payable (a 'policy_return'
-- entry), and the drain pass sends it to the return_address through the returns pipeline (origin
-- 'liquidation'), once; the drain then moves failed -> refunded.
ALTER TABLE deposit_returns DROP CONSTRAINT deposit_returns_origin_check;
ALTER TABLE deposit_returns ADD CONSTRAINT deposit_returns_origin_check
  CHECK (origin IN ('held', 'late_funding', 'excess', 'failed_payout', 'liquidation'));

-- A drain refunded to its return_address has no transfer, like the failed drain it was.
ALTER TABLE liquidation_drains DROP CONSTRAINT liquidation_drains_transfer_made;
ALTER TABLE liquidation_drains
  ADD CONSTRAINT liquidation_drains_transfer_made CHECK (
    state IN ('awaiting_funds', 'not_paid', 'canceled') OR transfer_id IS NOT NULL
    OR (state IN ('failed', 'refunded') AND failure_reason IS NOT NULL)
  );
