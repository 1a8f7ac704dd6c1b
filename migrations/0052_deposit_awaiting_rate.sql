-- Set when a deposit has its confirmations but its asset has no USD rate (a configured token the
-- rate provider does not quote, or a provider outage): it stays PENDING, uncredited, and is credited
-- at the first rate there is. Cleared when it is credited. The API shows it as `awaiting_rate`.
ALTER TABLE deposits ADD COLUMN awaiting_rate_since timestamptz(3);
