import { ServiceUnavailableError } from "@mp/core";

/**
 * The Tron node could not answer a read: unreachable, HTTP error, an `{"Error": …}` body, a missing
 * block or an answer of the wrong shape. Retryable: the indexer backs off and tries again; a block
 * is never skipped. The node URL is never part of the message (providers put API keys in it).
 */
export class TronApiError extends ServiceUnavailableError {
  readonly endpoint: string;
  constructor(endpoint: string, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(`Tron API ${endpoint}: ${message}`, {
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      details: { endpoint, ...options.details },
    });
    this.endpoint = endpoint;
  }
}
