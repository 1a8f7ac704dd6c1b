/**
 * Program ids and runtime constants of the simulated cluster. The well-known ids are the real
 * mainnet ones; the router is this node's own stand-in for any program that moves SOL by CPI.
 */
export const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";
export const TOKEN_PROGRAM_ID = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
export const ASSOCIATED_TOKEN_PROGRAM_ID = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
export const MEMO_PROGRAM_ID = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

/** Lamports of the executable program accounts (as on mainnet), so pre/postBalances look real. */
export const PROGRAM_ACCOUNT_LAMPORTS: Readonly<Record<string, bigint>> = {
  [SYSTEM_PROGRAM_ID]: 1n,
  [TOKEN_PROGRAM_ID]: 934_087_680n,
  [ASSOCIATED_TOKEN_PROGRAM_ID]: 731_913_600n,
  [MEMO_PROGRAM_ID]: 521_498_880n,
};
export const ROUTER_PROGRAM_LAMPORTS = 1_141_440n;

/** Rent-exempt minimums: a data-less wallet, a 165-byte token account, an 82-byte mint. */
export const RENT_EXEMPT_WALLET = 890_880n;
export const RENT_EXEMPT_TOKEN_ACCOUNT = 2_039_280n;
export const RENT_EXEMPT_MINT = 1_461_600n;
export const TOKEN_ACCOUNT_SPACE = 165;

export const LAMPORTS_PER_SIGNATURE = 5_000n;
/**
 * Blocks a blockhash stays usable (agave's MAX_PROCESSING_AGE): a transaction signed against the
 * block at height H can land up to height H + 150, getLatestBlockhash's `lastValidBlockHeight`.
 */
export const MAX_PROCESSING_AGE = 150;
/** Half of every fee is burned, half paid to the slot leader (shown as a "Fee" reward). */
export const LEADER_FEE_SHARE_DIVISOR = 2n;
export const COMPUTE_UNIT_LIMIT = 200_000;
/** Depth below the tip at which a block counts as finalized (vote lockout 32). */
export const FINALIZATION_DEPTH = 32;
/** getBlocks refuses longer ranges, as agave does. */
export const MAX_GET_BLOCKS_RANGE = 500_000;
/** Slot duration, for blockTime. */
export const SLOT_MS = 400;
