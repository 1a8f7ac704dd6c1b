import { type HttpTransport, http } from "viem";

export interface EvmTransportOptions {
  timeoutMs: number;
  /** Calls issued in the same tick go out as one JSON-RPC batch of at most this many; undefined: no batching. */
  batchSize?: number | undefined;
  maxResponseBytes?: number | undefined;
  fetch?: typeof globalThis.fetch | undefined;
}

/**
 * The one viem transport of every EVM node client: the indexer's reads, the treasury's sends and
 * sweeps, reconciliation and the sandbox faucet. viem retries nothing (its default is three retries
 * with backoff, hidden from us): the caller's loop owns retries (the indexer's backoff, the send
 * pipeline's and the sweeper's next pass), and a request that takes longer than `timeoutMs` fails.
 */
export function evmTransport(url: string, options: EvmTransportOptions): HttpTransport {
  return http(url, {
    retryCount: 0,
    timeout: options.timeoutMs,
    batch: options.batchSize === undefined ? false : { batchSize: options.batchSize, wait: 0 },
    ...(options.maxResponseBytes === undefined ? {} : { maxResponseBodySize: options.maxResponseBytes }),
    ...(options.fetch === undefined ? {} : { fetchFn: options.fetch }),
  });
}
