import type { ChainId } from "@mp/core";
import type { Queryable } from "@mp/db";

/** What the treasury is asked to send for a transfer (its send's idempotency key is the transfer id). */
export interface TransferPayout {
  chain: ChainId;
  asset: string;
  to: string;
  amountRaw: bigint;
  /** `return`: a returned deposit's money going back to its payer (deposit-returns/); default `transfer`. */
  purpose?: "transfer" | "return";
}

/** How a payout's send ended. */
export interface EndedSend {
  state: "confirmed" | "failed";
  /** Why it failed (the chain's reason); null when confirmed. */
  reason: string | null;
}

/**
 * The treasury as the transfers use it: the treasury's sends are its own (@mp/treasury implements
 * this as transferTreasury), the transfers never read its tables.
 */
export interface TransferTreasury {
  /**
   * Queues the payout's send in `sql`, the transfer's transaction, so the send and the transfer's
   * move commit together; the same key again finds the same send and sends nothing more. Throws the
   * treasury's refusals (not an address of the chain, below its dust limit, an address of ours).
   */
  requestSend(sql: Queryable, payout: TransferPayout, idempotencyKey: string): Promise<void>;
  /** The ended (confirmed or failed) sends among those the keys name, by key; the others are under way. */
  endedSends(sql: Queryable, idempotencyKeys: readonly string[]): Promise<Map<string, EndedSend>>;
}
