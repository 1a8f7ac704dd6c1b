import type { ChainId } from "@mp/core";
import { CompactKeySet } from "./compact-key-set.ts";

/**
 * One key set for the watch sets of every EVM chain of a process. A wallet has the same address on
 * the seven EVM chains, each chain's indexer watching its own destinations: seven sets held each
 * address seven times (a million wallets: 7 x 29 MB). Shared, an address is held once (~30 MB for
 * the seven), with a membership bit per chain, so a
 * chain still matches only its own destinations (an address given out on one chain alone, as a
 * payment request's, is watched there only).
 */
export interface EvmKeyStore {
  readonly keys: CompactKeySet;
  /** The chain's member in `keys`, given on first ask (eight at most: there are seven EVM chains). */
  memberOf(chain: ChainId): number;
}

export function createEvmKeyStore(): EvmKeyStore {
  const keys = new CompactKeySet({ hexKeys: true });
  const members = new Map<ChainId, number>();
  return {
    keys,
    memberOf(chain) {
      let member = members.get(chain);
      if (member === undefined) {
        if (members.size >= 8) throw new Error(`an EVM key store serves eight chains at most; ${chain} is a ninth`);
        member = members.size;
        members.set(chain, member);
      }
      return member;
    },
  };
}
