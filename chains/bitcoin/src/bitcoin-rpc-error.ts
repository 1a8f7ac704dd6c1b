import { ServiceUnavailableError } from "@mp/core";

/**
 * Bitcoin Core answered a call with a JSON-RPC error. Retryable: on the read path these are races
 * with the node (a reorg removed a height, the node is warming up) that a later retry resolves.
 */
export class BitcoinRpcError extends ServiceUnavailableError {
  readonly rpcCode: number;
  readonly method: string;
  constructor(method: string, rpcCode: number, rpcMessage: string) {
    super(`Bitcoin RPC ${method} failed: ${rpcMessage} (code ${rpcCode})`, { details: { method, rpcCode } });
    this.rpcCode = rpcCode;
    this.method = method;
  }
}

/** Error codes of Bitcoin Core (src/rpc/protocol.h) the adapter and faucet act on. */
export const RPC_CODES = {
  INVALID_ADDRESS_OR_KEY: -5,
  WALLET_INSUFFICIENT_FUNDS: -6,
  INVALID_PARAMETER: -8,
  IN_WARMUP: -28,
  METHOD_NOT_FOUND: -32601,
} as const;
