import { AppError } from "@mp/core";

/**
 * The node refused the transaction (Core's code and reject reason in the message: a replacement
 * paying too little, inputs spent by a sibling ...). Stored attempts are never lost: the pipeline
 * broadcasts again next pass, and status() settles what can no longer land.
 */
export class BroadcastRejectedError extends AppError {
  constructor(message: string, details: { txHash: string; rpcCode: number }) {
    super("service_unavailable", message, { retryable: true, details });
  }
}
