import { AppError } from "@mp/core";

/**
 * The node's answers disagree with each other (headers that do not link, a transfer in a block
 * the headers do not show): the chain moved during the scan. Retryable: the next iteration looks
 * again, and a real reorg is then seen by the parent-hash checks.
 */
export class ChainMovedError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("service_unavailable", message, { retryable: true, ...(details === undefined ? {} : { details }) });
  }
}
