import type { AddressDeriver, DerivedAddress } from "../deps.ts";
import type { WalletSlot } from "./wallet-index-allocator.ts";

/** Slots derived ahead and not yet taken; a few per merchant at most, the oldest dropped first. */
const CAPACITY = 256;

/**
 * Derives the addresses of a merchant's next wallet slot after a request is answered, in the idle
 * time between requests, so the next creation finds them ready (deriving ten addresses costs about a
 * millisecond of CPU). Derivation is a pure function of the slot: a slot derived ahead and never taken
 * only cost that CPU.
 */
export class AddressesAhead {
  private readonly ready = new Map<string, DerivedAddress[]>();

  constructor(private readonly deriver: AddressDeriver) {}

  addressesFor(slot: WalletSlot): DerivedAddress[] {
    const key = `${slot.account}:${slot.index}`;
    const derived = this.ready.get(key);
    if (derived) {
      this.ready.delete(key);
      return derived;
    }
    return this.deriver.deriveWalletAddresses(slot.account, slot.index);
  }

  /** Derives `slot` on a later turn of the event loop, unless it is ready already. */
  deriveLater(slot: WalletSlot | undefined): void {
    if (!slot) return;
    const key = `${slot.account}:${slot.index}`;
    if (this.ready.has(key)) return;
    setImmediate(() => {
      if (this.ready.has(key)) return;
      this.ready.set(key, this.deriver.deriveWalletAddresses(slot.account, slot.index));
      if (this.ready.size > CAPACITY) {
        const oldest = this.ready.keys().next().value;
        if (oldest !== undefined) this.ready.delete(oldest);
      }
    });
  }
}
