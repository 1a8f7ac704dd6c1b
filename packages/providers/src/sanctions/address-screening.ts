/**
 * Sanctions screening of blockchain addresses: one question, "is this address on a sanctions
 * list?", asked of every deposit's sender and every destination we would pay (docs/sanctions.md).
 * The answer is local (a list held in memory), never a network call, so it may be asked inside a
 * request's or an indexer's work without holding a transaction open on an outside service.
 */
export interface SanctionsHit {
  /** The address as it was screened. */
  address: string;
  /** Which list named it: the file it came from (`sanctioned_addresses_ETH.txt`) or `sandbox`. */
  list: string;
}

export interface AddressScreening {
  /** The hit for `address`, or null when no list names it. Any chain's address form. */
  screen(address: string): Promise<SanctionsHit | null>;
  /** What is loaded, for the start-up log and the operator: "off", or the lists and their sizes. */
  describe(): ScreeningDescription;
}

export type ScreeningDescription =
  | { mode: "off" }
  | { mode: "list"; path: string | null; addresses: number; lists: readonly string[]; loadedAt: Date | null };

/** SANCTIONS_SCREENING=off: nothing is screened (the operator opted out; logged at every start). */
export function createDisabledScreening(): AddressScreening {
  return {
    screen: async () => null,
    describe: () => ({ mode: "off" }),
  };
}
