import { AppError } from "./errors.ts";

/**
 * The node's answers disagree with each other (headers that do not link, a transfer in a block
 * the headers do not show, a block that changed between two calls): the chain moved during the
 * scan. Retryable: the next iteration looks again, and a real reorg is then seen by the
 * parent-hash checks. The one type every adapter and the indexer use for this.
 */
export class ChainMovedError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("service_unavailable", message, { retryable: true, ...(details === undefined ? {} : { details }) });
  }
}

/**
 * The chain's configuration is wrong, not the network flaky: the node serves another chain or
 * network (eth_chainId, genesis, Bitcoin `chain`), refuses our credentials (401/403), or no longer
 * holds the blocks we need (a pruned Solana slot). Not retryable: the indexer stops that chain with
 * this message, shown in GET /v1/chains and /metrics, until an operator fixes the config.
 */
export class ChainMisconfiguredError extends AppError {
  constructor(message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super("chain_misconfigured", message, { ...options, retryable: false });
  }
}
