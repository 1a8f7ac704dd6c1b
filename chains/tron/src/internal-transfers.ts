import type { AddressMatcher } from "@mp/core";
import { z } from "zod";
import { hexAddressSchema, sunSchema } from "./api-schemas.ts";
import type { BlockLocation } from "./block-location.ts";
import { hexToBase58 } from "./tron-address.ts";
import { TronApiError } from "./tron-api-error.ts";

/**
 * One `internal_transactions` entry of a TransactionInfo (java-tron `InternalTransaction`, written
 * only by nodes with `vm.saveInternalTx = true`, as TronGrid's are): a CALL (note "call"), CREATE or
 * SELFDESTRUCT ("suicide") made by a contract, moving TRX (`callValueInfo[].callValue`, sun) or a
 * TRC-10 (`tokenId` set) from `caller_address` to `transferTo_address`. `rejected: true` when that
 * call failed or the whole transaction reverted: nothing moved. A call without value has `[{}]`.
 */
const internalTransactionSchema = z.object({
  caller_address: hexAddressSchema,
  transferTo_address: hexAddressSchema,
  callValueInfo: z.array(z.object({ callValue: sunSchema.optional(), tokenId: z.string().optional() })).optional(),
  rejected: z.boolean().optional(),
});

/** A TRX payment (a TransferContract, or one made inside a contract call): base58 addresses, sun. */
export interface TrxPayment {
  position: string;
  from: string;
  to: string;
  amount: bigint;
}

/**
 * TRX that contracts paid to watched addresses inside a successful transaction (`receiptSucceeded`
 * is checked by the caller: a reverted transaction moved nothing, whatever its entries say), at
 * position `internal:<index in internal_transactions>`: the node writes the list in execution
 * order, so the position is the same at every rescan. Rejected entries, TRC-10 values, zero
 * values and self-payments (a DELEGATECALL names the caller as both ends) are not deposits. The
 * transaction's own call value (to the contract) is not an entry, so nothing is counted twice.
 */
export function internalTrxPayments(
  txHash: string,
  entries: readonly unknown[],
  where: BlockLocation,
  watch: AddressMatcher,
): TrxPayment[] {
  const payments: TrxPayment[] = [];
  entries.forEach((entry, index) => {
    // The recipient is read cheaply first: most inner calls of a block pay no watched address.
    const toHex = typeof entry === "object" && entry !== null ? Reflect.get(entry, "transferTo_address") : undefined;
    if (!hexAddressSchema.safeParse(toHex).success) return;
    const to = hexToBase58(String(toHex).toLowerCase());
    if (!watch.has(to)) return;
    const parsed = internalTransactionSchema.safeParse(entry);
    if (!parsed.success) {
      throw new TronApiError(
        "/wallet/gettransactioninfobyblocknum",
        `block ${where.height}: unreadable internal transaction ${index} of ${txHash}`,
        { cause: parsed.error },
      );
    }
    const internal = parsed.data;
    if (internal.rejected === true) return;
    const from = hexToBase58(internal.caller_address.toLowerCase());
    const amount = (internal.callValueInfo ?? [])
      .filter((value) => value.tokenId === undefined || value.tokenId === "")
      .reduce((sum, value) => sum + (value.callValue ?? 0n), 0n);
    if (amount > 0n && from !== to) payments.push({ position: `internal:${index}`, from, to, amount });
  });
  return payments;
}
