/**
 * Error codes of Bitcoin Core (src/rpc/protocol.h) the adapter and faucet act on; a JSON-RPC error
 * arrives as @mp/rpc's JsonRpcError, whose `rpcCode` is one of these.
 */
export const RPC_CODES = {
  /** RPC_MISC_ERROR: among others, getblock of a pruned block ("Block not available (pruned data)"). */
  MISC_ERROR: -1,
  INVALID_ADDRESS_OR_KEY: -5,
  WALLET_INSUFFICIENT_FUNDS: -6,
  INVALID_PARAMETER: -8,
  IN_WARMUP: -28,
  METHOD_NOT_FOUND: -32601,
} as const;
