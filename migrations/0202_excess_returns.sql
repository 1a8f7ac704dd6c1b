-- The `return` policy (issue 29, item 2) also sends back the excess of a crypto over-payment: the part
-- of a deposit its transfer's intent did not take (funding_intent_credits outcome APPLIED,
-- excess_amount > 0). Its 'policy_return' entry takes back only that part (its share of the USD value,
-- the fee the deposit finally paid included) and its return sends only that part (origin 'excess').
ALTER TABLE deposit_returns DROP CONSTRAINT deposit_returns_origin_check;
ALTER TABLE deposit_returns ADD CONSTRAINT deposit_returns_origin_check
  CHECK (origin IN ('held', 'late_funding', 'excess'));
