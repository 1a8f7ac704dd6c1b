-- The EVM sender's funds check asks, per signer address, for its attempts not yet mined. The
-- sweeper signs from a thousand deposit addresses in one pass, each asking once: without this
-- index each question scans every open attempt of the chain.
CREATE INDEX treasury_attempts_open_from ON treasury_attempts (chain, from_address) WHERE state IN ('signed', 'broadcast');
