import type { Database } from "@mp/db";
import { type AddressScreening, refuseSanctionedDestination } from "@mp/providers";
import type { TransferTreasury } from "./transfer-treasury.ts";

/**
 * The treasury as a merchant's payout start sees it: the destination is screened again at the send
 * (a list may have changed since the quote) and a listed one is refused with 422
 * destination_sanctioned, a permanent refusal (transfer-retries.ts) that fails the transfer at once.
 * The match is recorded on `db`, outside the transfer's transaction, so the refusal does not roll it back.
 */
export function screenedTreasury(
  db: Database,
  treasury: TransferTreasury,
  screening: AddressScreening,
  merchantId: string,
): TransferTreasury {
  return {
    ...treasury,
    async requestSend(sql, payout, idempotencyKey) {
      await refuseSanctionedDestination(db, screening, {
        context: "payout",
        chain: payout.chain,
        address: payout.to,
        merchantId,
        reference: idempotencyKey,
        field: "destination.address",
      });
      return treasury.requestSend(sql, payout, idempotencyKey);
    },
  };
}
