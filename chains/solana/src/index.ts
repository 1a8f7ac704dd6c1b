export { SLOT_SKIPPED_ERROR_CODES, type SolanaCommitment } from "./constants.ts";
export { TRANSACTION_HISTORY_NOT_AVAILABLE, verifySolanaNode } from "./node-capabilities.ts";
export { signatureSchema, slotSchema, u64Schema } from "./rpc-schemas.ts";
export { createSolanaAdapter, type SolanaAdapterOptions } from "./solana-adapter.ts";
export { resolveSolanaAssets, SOLANA_DEFAULT_TOKENS, type SolanaAssets } from "./solana-assets.ts";
export { createSolanaFaucet, type SolanaFaucetOptions, TEST_TOKEN_TRANSFER_PATH } from "./solana-faucet.ts";
