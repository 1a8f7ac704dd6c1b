import { DestinationSanctionedError } from "@mp/core";
import type { AddressScreening, SanctionsMatchInput } from "@mp/providers";
import type { TransferTreasury } from "./transfer-treasury.ts";

/**
 * The treasury as a merchant's payout start sees it: the destination is screened again at the send
 * (a list may have changed since the quote) and a listed one is refused with 422
 * destination_sanctioned, a permanent refusal (transfer-retries.ts) that fails the transfer at once.
 * The screening is in memory; the match is pushed to `refused` for the caller to record once the
 * transfer's transaction has ended: the refusal rolls that transaction back, and a second connection
 * used inside it would wait for it forever on the embedded database (one transaction at a time).
 */
export function screenedTreasury(
  treasury: TransferTreasury,
  screening: AddressScreening,
  merchantId: string,
  refused: SanctionsMatchInput[],
): TransferTreasury {
  return {
    ...treasury,
    async requestSend(sql, payout, idempotencyKey) {
      const hit = await screening.screen(payout.to);
      if (hit !== null) {
        refused.push({ context: "payout", hit, chain: payout.chain, merchantId, reference: idempotencyKey });
        throw new DestinationSanctionedError("destination.address", payout.to, hit.list);
      }
      return treasury.requestSend(sql, payout, idempotencyKey);
    },
  };
}
