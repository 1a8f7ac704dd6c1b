import type { ObservedTransfer } from "@mp/core";

/** A matched transfer with where it sits in its block, to order a scan's results. */
export interface SortableTransfer {
  transfer: ObservedTransfer;
  transactionIndex: number;
  /** null for the native value of a transaction (it moves before the transaction's logs). */
  logIndex: number | null;
}

/** Chain order: block, transaction, then the native value before the transaction's logs. */
export function compareTransfers(a: SortableTransfer, b: SortableTransfer): number {
  return (
    a.transfer.blockHeight - b.transfer.blockHeight ||
    a.transactionIndex - b.transactionIndex ||
    (a.logIndex ?? -1) - (b.logIndex ?? -1)
  );
}
