import type { ChainId } from "@mp/core";

/**
 * What a chain family refuses before a send is queued (requestSend): one bad destination in a
 * Bitcoin batch would otherwise take its whole transaction (and every send batched with it) down.
 * Each family (chains/<family>) exports its own; its record carries it as `sendCheck`.
 */
export interface SendCheck {
  /** Whether a send of the family may go to `to`: an address of its chains, in the form they show it. */
  isSendDestination(to: string): boolean;
  /** Throws a ValidationError (field amount) for an amount no node of the family relays (a dust limit). */
  assertSendAmount(asset: string, amountRaw: bigint): void;
}

/** The send check of a chain: the registry's (`familyOf(chain).sendCheck`). */
export type SendCheckOf = (chain: ChainId) => SendCheck;
