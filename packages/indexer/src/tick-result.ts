import type { ScanRange } from "@mp/core";

/** What one iteration did. */
export interface TickResult {
  /** False when another indexer leads the chain (holds its lease): this one did nothing. */
  active: boolean;
  head: number | null;
  indexedHeight: number | null;
  /** The range scanned and recorded, if any. */
  scanned: ScanRange | null;
  /** Set when a reorganisation was rolled back to this height (nothing was scanned then). */
  reorgAncestor: number | null;
  depositsSeen: number;
  depositsConfirmed: number;
  depositsReversed: number;
  /** Nothing left to scan up to the head: the loop may wait a poll interval. */
  caughtUp: boolean;
  /** Where the iteration's time went, in milliseconds (zero for a step that did not run). */
  timings: TickTimings;
}

export interface TickTimings {
  /** Headers and transfers of the range from the node. */
  scanMs: number;
  /** The transaction that records deposits, block hashes and the cursor. */
  recordMs: number;
  /** Confirming and crediting the deposits that reached their confirmations. */
  confirmMs: number;
}

/** An iteration that scanned nothing (standing by, waiting for the node, or nothing new). */
export function idleTick(active: boolean, head: number | null, indexedHeight: number | null): TickResult {
  return {
    active,
    head,
    indexedHeight,
    scanned: null,
    reorgAncestor: null,
    depositsSeen: 0,
    depositsConfirmed: 0,
    depositsReversed: 0,
    caughtUp: true,
    timings: { scanMs: 0, recordMs: 0, confirmMs: 0 },
  };
}
