import type { Queryable } from "@mp/db";
import { z } from "zod";
import { idSchema, microsSchema, parseInput } from "./inputs.ts";
import { transferLines } from "./journal-entry.ts";
import { postSystemEntry, postSystemReversal } from "./system-entry.ts";

/**
 * The operator's float (migrations/0103): money an operator sends to a treasury address. It is the
 * operator's, never a merchant's, so its entries belong to no merchant and touch only system accounts:
 * deposit_clearing (the crypto on our addresses) against operator_float.
 *
 * Currency: the ledger has one currency, USD micro-units, and values crypto when it confirms (as a
 * deposit credit does); the float follows that model, valued at the rate provider's USD rate at
 * confirmation. The exact amount in the asset's smallest units stays on the treasury_receipts row,
 * which is what `payments reconcile chains` compares with the chains: a USD figure moves with the
 * market, the chain's amount does not.
 */
const receiptInput = z.object({ receiptId: idSchema, amountUsdMicros: microsSchema });

/** A confirmed operator top-up: deposit_clearing -> operator_float, once per receipt. */
export async function postFloatReceipt(
  client: Queryable,
  input: { receiptId: string; amountUsdMicros: bigint },
): Promise<{ entryId: string; created: boolean }> {
  const { receiptId, amountUsdMicros } = parseInput(receiptInput, input);
  return postSystemEntry(
    client,
    "float_receipt",
    receiptId,
    // A debit of deposit_clearing (asset grows) and a credit of operator_float (the operator's equity).
    transferLines("deposit_clearing", "operator_float", amountUsdMicros),
  );
}

/** A float receipt whose block left the chain: the exact opposite of its entry; null when never posted. */
export async function postFloatReversal(client: Queryable, receiptId: string): Promise<{ entryId: string } | null> {
  return postSystemReversal(client, "float_receipt", "float_reversal", receiptId);
}
