import type { GenesisNetwork, KnownNetworks } from "@mp/core";

/** Program ids the adapter recognises in jsonParsed transactions (the same on every cluster). */
export const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";
export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const TOKEN_2022_PROGRAM_ID = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb";
export const ASSOCIATED_TOKEN_PROGRAM_ID = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";

/**
 * System program instructions that move lamports to a `destination` chosen by the sender. Account
 * creation (`createAccount`) is left out on purpose: the new account must sign it, so a third party
 * can never pay a customer that way.
 */
export const SOL_TRANSFER_INSTRUCTION_TYPES: ReadonlySet<string> = new Set(["transfer", "transferWithSeed"]);

/**
 * getBlock error codes that mean "no block at this slot" (JSON_RPC_SERVER_ERROR_SLOT_SKIPPED and
 * JSON_RPC_SERVER_ERROR_LONG_TERM_STORAGE_SLOT_SKIPPED in agave's rpc_custom_error.rs).
 */
export const SLOT_SKIPPED_ERROR_CODES: ReadonlySet<number> = new Set([-32007, -32009]);

/** getBlocks refuses ranges longer than this (MAX_GET_CONFIRMED_BLOCKS_RANGE). */
export const MAX_GET_BLOCKS_RANGE = 500_000;

/**
 * Commitment for every read. `confirmed` = voted on by a supermajority (2/3 of stake): a block at
 * this level has never been rolled back on mainnet, yet it is ~13 s fresher than `finalized`.
 * `processed` is refused by getBlock anyway. Deposits are then held PENDING for `confirmations`
 * slots of depth (default 32, the vote-lockout depth at which a block is rooted/finalized); the
 * indexer's hash checks cover the rare fork switch in between.
 */
export const DEFAULT_COMMITMENT = "confirmed";
export type SolanaCommitment = "confirmed" | "finalized";

/** The public clusters: mainnet is mainnet-beta; testnet is testnet or devnet (both test money). */
export const SOLANA_CLUSTERS: KnownNetworks<GenesisNetwork> = {
  mainnet: [{ name: "mainnet-beta", genesis: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d" }],
  testnet: [
    { name: "testnet", genesis: "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY" },
    { name: "devnet", genesis: "EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG" },
  ],
};
