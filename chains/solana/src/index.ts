export type { SolanaCommitment } from "./constants.ts";
export { createSolanaAdapter, type SolanaAdapterOptions } from "./solana-adapter.ts";
export { SOLANA_DEFAULT_TOKENS } from "./solana-assets.ts";
export { createSolanaFaucet, type SolanaFaucetOptions, TEST_TOKEN_TRANSFER_PATH } from "./solana-faucet.ts";
