import type { ScanRange } from "./chain-adapter.ts";
import { ValidationError } from "./errors.ts";

/**
 * Every adapter answers a range alike: one ending before it starts is empty (the indexer is caught
 * up) and yields `[]`; a malformed one (negative, fractional, unsafe) is a caller bug and throws.
 */
export function isEmptyRange(range: ScanRange): boolean {
  if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to) || range.from < 0) {
    throw new ValidationError(`invalid block range ${range.from}..${range.to}`, "range");
  }
  return range.to < range.from;
}
