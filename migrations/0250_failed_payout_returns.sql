-- The `return` policy (issue 29, item 2) also sends back the funds of a customer-funded transfer whose
-- payout failed (transfer FAILED, its intent's payer the CUSTOMER): each crypto payment its intent took
-- goes back whole to its sender (origin 'failed_payout'). Its 'policy_return' entry takes back the
-- deposit's gross as for late money (the failure released the transfer's holds to available); the
-- return row says why, since the deposit's credit still records the part its intent had taken.
ALTER TABLE deposit_returns DROP CONSTRAINT deposit_returns_origin_check;
ALTER TABLE deposit_returns ADD CONSTRAINT deposit_returns_origin_check
  CHECK (origin IN ('held', 'late_funding', 'excess', 'failed_payout'));
