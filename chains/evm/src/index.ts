export { AdaptiveBlockRange } from "./adaptive-block-range.ts";
export { createEvmAdapter, type EvmAdapterOptions } from "./evm-adapter.ts";
export { type EvmAssets, type EvmToken, resolveEvmAssets } from "./evm-assets.ts";
export { createEvmFaucet, type EvmFaucetOptions } from "./evm-faucet.ts";
export { checkEvmChainId, EVM_CHAIN_IDS } from "./evm-networks.ts";
export { HISTORY_DEPTH } from "./node-capabilities.ts";
export { EvmRpcError, isLogRangeRejection, type RpcFailure } from "./rpc-failure.ts";
export { TRANSFER_TOPIC } from "./transfer-logs.ts";
