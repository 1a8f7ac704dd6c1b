import type { Queryable } from "@mp/db";
import { z } from "zod";
import { idSchema, parseInput, positiveMicrosSchema } from "./inputs.ts";
import { postEntry, transferLines } from "./journal-entry.ts";

const bankDepositInput = z.object({
  bankDepositId: idSchema,
  merchantId: idSchema,
  amountUsdMicros: positiveMicrosSchema,
});

/** Fiat received on a virtual account: bank_clearing -> merchant_available. Idempotent per bank deposit. */
export async function postBankDeposit(
  client: Queryable,
  input: { bankDepositId: string; merchantId: string; amountUsdMicros: bigint },
): Promise<{ entryId: string }> {
  const { bankDepositId, merchantId, amountUsdMicros } = parseInput(bankDepositInput, input);
  const { entryId } = await postEntry(client, {
    kind: "bank_deposit",
    reference: bankDepositId,
    merchantId,
    lines: transferLines("bank_clearing", "merchant_available", amountUsdMicros),
  });
  return { entryId };
}
