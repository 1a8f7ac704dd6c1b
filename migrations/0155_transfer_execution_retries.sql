-- Per-transfer isolation of the transfer executor (issue 27, finding 2).
--
-- A step of the executor that throws for one transfer (start of its payout, its finish) no longer
-- aborts the pass: the error is recorded on that transfer alone and the step is retried with
-- backoff, the others go on.
--   execution_attempts  failed tries of the current step (reset when the transfer moves on)
--   next_attempt_at     not tried again before this (null: due now)
--   last_error          what the last failed try said (for operators; logs carry the same)
--   failure_reason      why a FAILED transfer failed: the send's or the bank's reason, the funding
--                       reversed, or the start given up after the bound (shown as failure_reason)
ALTER TABLE transfers
  ADD COLUMN execution_attempts integer NOT NULL DEFAULT 0 CHECK (execution_attempts >= 0),
  ADD COLUMN next_attempt_at timestamptz(3),
  ADD COLUMN last_error text,
  ADD COLUMN failure_reason text;

-- The executor's selections: FUNDED and PROCESSING transfers due for a try, oldest first.
CREATE INDEX transfers_executable ON transfers (created_at, id) WHERE status IN ('FUNDED', 'PROCESSING');
