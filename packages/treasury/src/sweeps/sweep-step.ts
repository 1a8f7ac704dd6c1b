import type { ChainFamily, Logger } from "@mp/core";
import type { DepositKey, TreasuryKeys } from "@mp/custody";
import { LeadershipLostError } from "@mp/db";

/**
 * One sweep step (an address, a sweep) that the node or the database cannot serve now does not hold
 * up the others: it is logged and retried next pass. Losing the lease ends the whole pass.
 */
export async function isolatedStep<T>(
  logger: Logger,
  context: Record<string, string>,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof LeadershipLostError) throw error;
    logger.warn({ ...context, err: String(error) }, "sweep step failed: retried next pass");
    return undefined;
  }
}

/**
 * TreasuryKeys that sign as one deposit address of `family`: the family's sender, reused as is,
 * then signs for it (and refuses every other family, and every key but the send key).
 */
export function keysSigningAs(family: ChainFamily, key: DepositKey): TreasuryKeys {
  return {
    fingerprint: "",
    key: (asked, branch = 0, index = 0) => {
      if (asked !== family || branch !== 0 || index !== 0) {
        throw new Error(`a deposit address signs ${family} transactions only, with its own key`);
      }
      return key;
    },
  };
}
