-- Deployment-wide facts. `root_fingerprint` is the BIP-32 fingerprint of the master key seen at
-- first start; a later start with another mnemonic is refused.
CREATE TABLE deployment (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  root_fingerprint text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);
