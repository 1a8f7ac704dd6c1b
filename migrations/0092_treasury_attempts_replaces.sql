-- "Is this attempt replaced by a newer one?" is asked of every open attempt in every pass (and in
-- the EVM sender's funds check, per send): without this index each question scans the table.
CREATE INDEX treasury_attempts_replaces ON treasury_attempts (replaces) WHERE replaces IS NOT NULL;
