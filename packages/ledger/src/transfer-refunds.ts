import type { Queryable } from "@mp/db";
import { z } from "zod";
import { idSchema, microsSchema, parseInput, positiveMicrosSchema } from "./inputs.ts";
import { type LineSpec, postEntry } from "./journal-entry.ts";

const refundInput = z.object({
  transferId: idSchema,
  merchantId: idSchema,
  paidUsdMicros: positiveMicrosSchema,
  feeUsdMicros: microsSchema,
});

/**
 * A completed transfer's payout came back (a bank return): what it settled into payout_clearing
 * (the paid part) and the fee it earned go back to the merchant's available balance, in one entry
 * of three lines (two when there was no fee). Once per transfer.
 */
export async function postTransferRefund(
  client: Queryable,
  input: { transferId: string; merchantId: string; paidUsdMicros: bigint; feeUsdMicros: bigint },
): Promise<{ entryId: string }> {
  const { transferId, merchantId, paidUsdMicros, feeUsdMicros } = parseInput(refundInput, input);
  const lines: LineSpec[] = [{ account: "payout_clearing", side: "debit", amount: paidUsdMicros }];
  if (feeUsdMicros > 0n) lines.push({ account: "fee_revenue", side: "debit", amount: feeUsdMicros });
  lines.push({ account: "merchant_available", side: "credit", amount: paidUsdMicros + feeUsdMicros });
  const { entryId } = await postEntry(client, { kind: "transfer_refund", reference: transferId, merchantId, lines });
  return { entryId };
}
