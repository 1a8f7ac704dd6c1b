-- What the treasury holds on each chain, per asset, as the signer last read it from the chain
-- (ChainSender.balances(), polled). The signer is the only role with the treasury's keys and senders;
-- this table lets the roles without them (the CLI's `payments treasury balances`, /metrics of any
-- process) show the balances. observed_at says how fresh a figure is.
CREATE TABLE treasury_balances (
  chain text NOT NULL,
  asset text NOT NULL,
  amount_raw numeric(78, 0) NOT NULL CHECK (amount_raw >= 0),
  -- The asset's decimals as the chain config gives them, so a reader without the config (the CLI of
  -- a local sandbox, whose chains only the running service knows) can show and parse amounts.
  decimals integer NOT NULL CHECK (decimals >= 0),
  observed_at timestamptz(3) NOT NULL,
  PRIMARY KEY (chain, asset)
);
