import { ServiceUnavailableError } from "@mp/core";

/**
 * The node could not be asked or did not answer usably: unreachable, too slow, HTTP 429/5xx (or
 * another status that is not about our credentials), an answer that is not JSON or not JSON-RPC.
 * Retryable: the indexer backs off and tries again. Never carries the URL or a key.
 */
export class RpcUnavailableError extends ServiceUnavailableError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(message, details === undefined ? {} : { details });
  }
}

/**
 * The node answered a JSON-RPC call with an error object. Retryable: on the read path these are
 * races with the node (a reorg removed a height, the node is warming up) that a retry resolves;
 * callers that know a code means something else (a bad address) check `rpcCode`.
 */
export class JsonRpcError extends ServiceUnavailableError {
  readonly method: string;
  readonly rpcCode: number;
  /** The node's own error message, as it sent it (Bitcoin Core's reject reason is its first field). */
  readonly rpcMessage: string;
  constructor(label: string, method: string, rpcCode: number, rpcMessage: string) {
    super(`${label} ${method} failed: ${rpcCode} ${rpcMessage}`, { details: { method, rpcCode } });
    this.method = method;
    this.rpcCode = rpcCode;
    this.rpcMessage = rpcMessage;
  }
}

/** An answer of the wrong shape: the node's fault (or a version we do not know), so retryable. */
export class RpcAnswerError extends ServiceUnavailableError {}
