-- Solana sweeps (issue 14): a deposit address's SPL token account is emptied into the treasury's and
-- then closed, which returns the account's rent (lamports a depositor paid when the account was
-- opened) to the treasury wallet; where the treasury had no token account of that mint yet, the same
-- transaction opens one and the treasury pays its rent. Neither is a deposit, a send or a fee, so
-- `payments reconcile chains` reads them here to explain the treasury's SOL.
--
-- Both are lamports (the chain's native coin), as signed into the sweep's last attempt; 0 where
-- nothing was closed or opened (every EVM sweep).
ALTER TABLE treasury_sweeps
  ADD COLUMN rent_reclaimed_raw numeric(78, 0) NOT NULL DEFAULT 0 CHECK (rent_reclaimed_raw >= 0),
  ADD COLUMN rent_paid_raw numeric(78, 0) NOT NULL DEFAULT 0 CHECK (rent_paid_raw >= 0);
--
-- On Solana the treasury, not the deposit address, is the sweep transaction's fee payer: its
-- fee_paid_raw (lamports) is paid by the treasury wallet.
