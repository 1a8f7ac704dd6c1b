-- Public derivation material for the roles without the master mnemonic (DESIGN.md "Treasury and
-- sending", issue 14 "Keys and roles"). Only a process holding MASTER_MNEMONIC (the signer role, part
-- of `all`) writes these rows; the API, indexer and worker roles derive receive addresses from them.
-- The root fingerprint stays in `deployment` (0005): every row here was derived from that root.

-- One row per merchant derivation account, derived ahead of the merchants counter (accounts in order,
-- never reused). The three secp256k1 columns are the BIP-32 extended public keys (xpub encoding) of
-- the account's external chain: m/44'/60'/a'/0 (EVM), m/44'/195'/a'/0 (Tron), m/84'/c'/a'/0
-- (Bitcoin, c = 0 on mainnet, 1 on testnet/regtest: `bitcoin_coin_type` says which); a wallet's
-- address at index i is their non-hardened child i. Hardened accounts need the private key, hence
-- the pool.
CREATE TABLE custody_accounts (
  account integer PRIMARY KEY CHECK (account >= 0),
  evm_xpub text NOT NULL,
  tron_xpub text NOT NULL,
  bitcoin_xpub text NOT NULL,
  bitcoin_coin_type integer NOT NULL CHECK (bitcoin_coin_type IN (0, 1)),
  -- Solana receive addresses derived so far for this account: indexes 0 .. solana_derived - 1 are in
  -- custody_solana_addresses (always contiguous from 0).
  solana_derived integer NOT NULL DEFAULT 0 CHECK (solana_derived >= 0),
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

-- Solana's path m/44'/501'/a'/i' is hardened to the end (SLIP-0010 ed25519): no public derivation
-- exists, so the signer derives each (account, index) address ahead and the API reads the one of the
-- wallet slot it allocated (merchants.next_wallet_index: in order, never reused).
CREATE TABLE custody_solana_addresses (
  account integer NOT NULL REFERENCES custody_accounts (account),
  address_index integer NOT NULL CHECK (address_index >= 0),
  address text NOT NULL UNIQUE,
  PRIMARY KEY (account, address_index)
);
