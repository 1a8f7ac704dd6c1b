import type { Queryable } from "@mp/db";
import { z } from "zod";
import { idSchema, parseInput, positiveMicrosSchema } from "./inputs.ts";
import { postEntry, transferLines } from "./journal-entry.ts";

const transferFeeInput = z.object({ transferId: idSchema, merchantId: idSchema, feeUsdMicros: positiveMicrosSchema });

/**
 * A completed transfer's fee, earned: payout_clearing -> fee_revenue. The fee was part of the holds
 * the transfer settled into payout_clearing; the rest of them is what was paid out. Once per transfer.
 */
export async function postTransferFee(
  client: Queryable,
  input: { transferId: string; merchantId: string; feeUsdMicros: bigint },
): Promise<{ entryId: string }> {
  const { transferId, merchantId, feeUsdMicros } = parseInput(transferFeeInput, input);
  const { entryId } = await postEntry(client, {
    kind: "transfer_fee",
    reference: transferId,
    merchantId,
    lines: transferLines("payout_clearing", "fee_revenue", feeUsdMicros),
  });
  return { entryId };
}
