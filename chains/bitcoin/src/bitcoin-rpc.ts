import type { ChainConfig, Logger } from "@mp/core";
import { type FetchLike, JsonRpcClient } from "@mp/rpc";

export interface BitcoinRpcOptions {
  fetch?: FetchLike | undefined;
  logger?: Logger | undefined;
  /** Per HTTP request; a large getblock batch can take a while on a busy node. */
  timeoutMs?: number | undefined;
}

/**
 * Bitcoin Core JSON-RPC 1.0 over the shared transport. Credentials come from the URL
 * (`http://user:pass@host:port`) and are sent as basic auth, never shown. Every request is a batch
 * (Core runs it in order and answers HTTP 200 with per-call errors); amounts are parsed exactly
 * (BTC decimals stay decimal strings, see @mp/rpc exact-json).
 */
export function bitcoinRpc(config: ChainConfig, options: BitcoinRpcOptions = {}): JsonRpcClient {
  return new JsonRpcClient({
    url: config.rpcUrl,
    label: "Bitcoin RPC",
    setting: `CHAINS_CONFIG.${config.chain}.rpcUrl`,
    version: "1.0",
    alwaysBatch: true,
    fetch: options.fetch,
    logger: options.logger,
    timeoutMs: options.timeoutMs,
  });
}
