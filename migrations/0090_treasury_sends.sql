-- The treasury's outgoing sends (issue 14). A send request (chain, asset, to, amount, the caller's
-- idempotency key) becomes one or more signed attempts. An attempt is stored here, with its raw
-- transaction and replay guard, in the same transaction that allocates the guard (an EVM nonce,
-- Bitcoin inputs) and BEFORE it is broadcast: after a crash the sender rebroadcasts or reconciles
-- what it stored and never signs the same request again blindly.

-- The treasury's own addresses (TREASURY_MNEMONIC), written by the signer at start, so the roles that
-- hold no key (api, indexer, the CLI's read commands) can list and watch them.
CREATE TABLE treasury_addresses (
  chain text NOT NULL,
  -- 'send': the address that signs and pays; 'change': a Bitcoin change address.
  purpose text NOT NULL CHECK (purpose IN ('send', 'change')),
  path text NOT NULL,
  address text NOT NULL,
  -- normalizeAddress form (EVM lowercased), for matching transfers.
  address_key text NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, address_key)
);

CREATE TABLE treasury_sends (
  id text PRIMARY KEY,
  chain text NOT NULL,
  asset text NOT NULL,
  to_address text NOT NULL,
  amount_raw numeric(78, 0) NOT NULL CHECK (amount_raw > 0),
  -- Who asked: an operator (CLI), a sweep's gas/energy top-up, a transfer payout (issue 15).
  purpose text NOT NULL CHECK (purpose IN ('operator', 'top_up', 'transfer')),
  -- The caller's key: the same key again returns this row; with other parameters it is refused.
  idempotency_key text NOT NULL UNIQUE,
  -- sha256 of the canonical parameters, to tell "same request" from "same key, other request".
  request_hash text NOT NULL,
  -- queued: waiting to be signed; waiting_funds: the treasury cannot cover it yet (reason says what
  -- is short); signed: an attempt is stored, not yet known to the network; broadcast: sent, waiting to
  -- be mined or confirmed; confirmed: its landed attempt has the chain's confirmations; failed: it
  -- cannot succeed (reason), nothing left the treasury except, where the chain charges it, a fee.
  state text NOT NULL CHECK (state IN ('queued', 'waiting_funds', 'signed', 'broadcast', 'confirmed', 'failed')),
  reason text,
  -- The attempt that landed (mined), once one has.
  landed_attempt_id text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  confirmed_at timestamptz(3)
);
CREATE INDEX treasury_sends_chain_state ON treasury_sends (chain, state, created_at);

-- One signed transaction. A replacement (EVM fee bump, Bitcoin RBF, Solana re-sign after proven
-- expiry) is a new row naming the one it replaces; every hash stays tracked and whichever lands wins.
CREATE TABLE treasury_attempts (
  id text PRIMARY KEY,
  chain text NOT NULL,
  from_address text NOT NULL,
  tx_hash text NOT NULL,
  -- Exactly what broadcast takes (hex for EVM/Bitcoin, base64 for Solana, JSON for Tron).
  raw text NOT NULL,
  -- The replay guard: {"nonce"} (EVM), {"inputs": [{"txid","vout"}]} (Bitcoin),
  -- {"blockhash","lastValidBlockHeight"} (Solana), {"expiration","refBlockBytes","refBlockHash"} (Tron).
  guard jsonb NOT NULL,
  -- What it offers to pay: {"maxFeePerGas","maxPriorityFeePerGas"} | {"gasPrice"} | {"feeRate","fee"} | {"feeLimit"} ...
  fee jsonb NOT NULL,
  replaces text REFERENCES treasury_attempts (id),
  -- signed: stored, not yet broadcast; broadcast: the node accepted it (or may have); mined: in a
  -- block (block_height/hash), counting confirmations; replaced: a replacement of it landed instead;
  -- expired: proven never to land (Solana blockhash past its last valid height and not found, Tron
  -- past its expiration, EVM nonce taken by another of our attempts); failed: mined but reverted
  -- (EVM revert, Tron OUT_OF_ENERGY), error says why.
  state text NOT NULL CHECK (state IN ('signed', 'broadcast', 'mined', 'replaced', 'expired', 'failed')),
  error text,
  block_height bigint,
  block_hash text,
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  broadcast_at timestamptz(3),
  updated_at timestamptz(3) NOT NULL DEFAULT now(),
  UNIQUE (chain, tx_hash)
);
CREATE INDEX treasury_attempts_open ON treasury_attempts (chain, state) WHERE state IN ('signed', 'broadcast', 'mined');

-- Which sends an attempt carries: one for EVM, Solana and Tron; several for a batched Bitcoin
-- transaction (output_index names each send's output).
CREATE TABLE treasury_attempt_sends (
  attempt_id text NOT NULL REFERENCES treasury_attempts (id),
  send_id text NOT NULL REFERENCES treasury_sends (id),
  output_index integer,
  PRIMARY KEY (attempt_id, send_id)
);
CREATE INDEX treasury_attempt_sends_send ON treasury_attempt_sends (send_id);

-- EVM nonces, allocated in the database per (chain, address) under this row's lock: two signers, or
-- two sends of one signer, can never take the same nonce, and a crash leaves no gap unexplained
-- (every allocated nonce has its stored attempt, committed in the same transaction).
CREATE TABLE treasury_nonces (
  chain text NOT NULL,
  address text NOT NULL,
  next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
  PRIMARY KEY (chain, address)
);
