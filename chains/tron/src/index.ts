export { type ApiBlock, type ApiTransactionInfo, blockSchema, transactionInfoListSchema } from "./api-schemas.ts";
export { type BlockLocation, extractBlockTransfers } from "./block-transfers.ts";
export { TRC20_TRANSFER_TOPIC } from "./constants.ts";
export { TronHttpClient, type TronHttpClientOptions } from "./http-api-client.ts";
export { createTronAdapter, type TronAdapterOptions } from "./tron-adapter.ts";
export { base58ToHex, evmHexToBase58, hexToBase58, isTronAddress, topicToBase58 } from "./tron-address.ts";
export { TronApiError } from "./tron-api-error.ts";
export { resolveTronAssets, TRON_DEFAULT_TOKENS, type TronAssets } from "./tron-assets.ts";
export { createTronFaucet, TEST_TRANSFER_PATH, type TronFaucetOptions } from "./tron-faucet.ts";
