import type { AddressDeriver, DerivedAddress } from "../deps.ts";

/** Prepared index sets kept per process (ten addresses each); the oldest go first. */
const CAPACITY = 512;
/** Predictions this far ahead of the last allocation are stale (failed creations); start again. */
const MAX_LEAD = 64;

/**
 * Derives a merchant's next wallet addresses before its counter row is locked rather than while it
 * is. A creation first derives the index this process expects the merchant to be given next, then
 * allocates; the allocated index is looked up here, so the derivation (~1.5 ms) leaves the section
 * that serialises a merchant's creations. Derivation is a pure function of (account, index): a wrong
 * prediction (another process allocated, a creation failed) only costs a derivation, the addresses
 * are always those of the index actually allocated.
 */
export class AddressLookahead {
  private readonly merchants = new Map<string, { account: number; next: number }>();
  private readonly prepared = new Map<string, DerivedAddress[]>();

  constructor(private readonly deriver: AddressDeriver) {}

  /** Before allocation: derives the index this merchant is expected to get next (nothing until its first allocation). */
  prepare(merchantId: string): void {
    const state = this.merchants.get(merchantId);
    if (!state) return;
    const index = state.next++;
    const key = `${state.account}:${index}`;
    if (this.prepared.has(key)) return;
    this.prepared.set(key, this.deriver.deriveWalletAddresses(state.account, index));
    if (this.prepared.size > CAPACITY) {
      const oldest = this.prepared.keys().next().value;
      if (oldest !== undefined) this.prepared.delete(oldest);
    }
  }

  /** After allocation: the addresses of (account, index), prepared or derived now. */
  addressesFor(merchantId: string, account: number, index: number): DerivedAddress[] {
    const state = this.merchants.get(merchantId);
    if (!state || state.account !== account || state.next <= index || state.next > index + MAX_LEAD) {
      this.merchants.set(merchantId, { account, next: index + 1 });
    }
    const key = `${account}:${index}`;
    const ready = this.prepared.get(key);
    if (ready) {
      this.prepared.delete(key);
      return ready;
    }
    return this.deriver.deriveWalletAddresses(account, index);
  }
}

const perDeriver = new WeakMap<AddressDeriver, AddressLookahead>();

/** One lookahead per deriver (per app), so predictions follow that app's allocations. */
export function addressLookahead(deriver: AddressDeriver): AddressLookahead {
  let lookahead = perDeriver.get(deriver);
  if (!lookahead) {
    lookahead = new AddressLookahead(deriver);
    perDeriver.set(deriver, lookahead);
  }
  return lookahead;
}
